"""judge-compare's one function: read the logs, build the report, judge the gate, decide which
judge to deploy, and write the report's files (and, where asked, the panel's suspects)."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from farejudge.comparison.attacks.gate import attack_violations
from farejudge.comparison.deploy.candidates import DeployOptions
from farejudge.comparison.deploy.decision import decision_json
from farejudge.comparison.escalation.results import EscalationOptions
from farejudge.comparison.logs.frame import LeftOut, Runs, load_runs
from farejudge.comparison.panel.suspicion import Suspect
from farejudge.comparison.report.build import Report, build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import GateResult, evaluate
from farejudge.core.atomic_files import write_together
from farejudge.core.decision_file import DECISION_FILE
from farejudge.raters import EPSILON_EXPERT
from farejudge.shared.document import html, markdown
from farejudge.shared.document.long_lists import LISTING_FILE, write_listing
from farejudge.shared.document.model import Section


class UsageError(Exception):
    """An option or a path judge-compare cannot use: one line, exit 2."""


@dataclass(frozen=True)
class CompareOptions:
    """judge-compare's options, checked."""

    logs: list[str]
    out: Path
    allowed: set[str]
    """The cases the gate may let fail."""
    partial: bool
    resamples: int
    seed: int
    target_recall: float
    panel: list[str] | None
    deploy: DeployOptions
    escalation: EscalationOptions | None
    suspects_out: Path | None
    epsilon: float = EPSILON_EXPERT
    """The alternative annotator test's margin (`--epsilon`)."""


@dataclass(frozen=True)
class Comparison:
    """What judge-compare made: the report, its gate and deploy decision, the files written."""

    report: Report
    gate: GateResult
    decision: str
    """decision.json's text."""
    text: str
    """The report in Markdown."""
    files: list[Path]
    suspects: list[str]
    """What the suspects export wrote, line by line; empty without --suspects-out."""


def _write_report(out: Path, text: str, page: str, parts: list[Section], chosen: str) -> list[Path]:
    """report.md, report.html, the listing and the decision, replacing the previous four
    together."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: {err.strerror}") from err
    return write_together(
        out,
        "report",
        {
            "report.md": lambda stream: stream.write(text),
            "report.html": lambda stream: stream.write(page),
            LISTING_FILE: lambda stream: write_listing(parts, stream),
            DECISION_FILE: lambda stream: stream.write(chosen),
        },
    )


def _suspects(suspects: Sequence[Suspect], runs: Runs, out: Path) -> list[str]:
    # Only here: the export reads cases through the labelling tools, whose imports (Hugging
    # Face datasets) would add a second to every judge-compare.
    from farejudge.comparison.panel.suspects_export import export_lines, export_suspects

    try:
        export = export_suspects(suspects, runs, out)
    except OSError as err:
        raise UsageError(f"--suspects-out {out}: {err.strerror}") from err
    return export_lines(export, out)


def compare(o: CompareOptions, left_out: Callable[[Sequence[LeftOut]], None]) -> Comparison:
    """The comparison of the logs `o` names, its files written; `left_out` is told of the log
    files left out as soon as they are known, before anything else can fail."""
    runs = load_runs(o.logs)
    left_out(runs.left_out)
    report = build_report(
        runs,
        Resampling(o.resamples, o.seed),
        partial=o.partial,
        target_recall=o.target_recall,
        panel=o.panel,
        deploy=o.deploy,
        escalation=o.escalation,
        epsilon=o.epsilon,
    )
    gate = evaluate(report.verdicts, runs, o.allowed, attack_violations(report.attacks))
    parts = sections(report, gate)
    text = markdown.render(parts)
    chosen = decision_json(report.deployment)
    written = _write_report(o.out, text, html.render(parts), parts, chosen)
    found = report.panel.suspects
    suspects = _suspects(found, report.runs, o.suspects_out) if o.suspects_out else []
    return Comparison(report, gate, chosen, text, written, suspects)
