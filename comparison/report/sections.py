"""The report's sections in order: each feature's, and the ones about the runs themselves.

Those about the runs: the header with the files left out, token use and cost, the notes.
"""

import math
from pathlib import Path

from farejudge.comparison.attacks.sections import attack_sections
from farejudge.comparison.deploy.sections import deploy_sections
from farejudge.comparison.escalation.sections import escalation_sections
from farejudge.comparison.graded.sections import graded_sections
from farejudge.comparison.humans.sections import section as human_section
from farejudge.comparison.logs.frame import LeftOut, Runs
from farejudge.comparison.panel.sections import panel_sections
from farejudge.comparison.report.build import Report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.figures import RunSummary
from farejudge.comparison.verdicts.gate import GateResult
from farejudge.comparison.verdicts.sections import (
    gate_section,
    stability_sections,
    verdict_sections,
)
from farejudge.shared.document.model import Section, Table, bad


def _partial(gate: GateResult) -> list[str]:
    """What a partial comparison left out, said before anything is read as a figure."""
    return [
        "Partial comparison (judge-compare --partial): a run given fewer cases than its case "
        "set (--limit, --sample-id) is compared, and gated, on the cases it was given only. "
        + (
            "; ".join(gate.partial)
            if gate.partial
            else "Every run here was given its whole case set"
        )
        + "."
    ]


LEFT_OUT_LIST = "left_out"


def _run(item: LeftOut, compared: set[tuple[str, str]]) -> str:
    if item.run is None:
        return "—" if item.why.settled else "unknown: no header read"
    version, model = item.run
    return f"{version} with {model}" + ("" if item.run in compared else " (not compared)")


def _left_out(runs: Runs) -> list[Table]:
    """The files found and not compared, with why: said at the top, since a figure below may
    lack what one of them holds."""
    left_out = runs.left_out
    if not left_out:
        return []
    compared = {
        (str(v), str(m)) for v, m in zip(runs.logs["version"], runs.logs["model"], strict=True)
    }
    rows = [
        [
            item.log,
            item.why.reason,
            item.why.detail,
            _run(item, compared),
            bad("INCOMPLETE") if item.holds_gate else "none",
        ]
        for item in left_out
    ]
    return [
        Table(
            ["File", "Left out", "Why", "Run", "Gate"],
            rows,
            caption=(
                f"Left out: {len(left_out)} log file(s) found and not compared. A file left "
                "out makes the gate INCOMPLETE: one whose header names a compared run is part "
                "of that run, and one whose header cannot be read may hold a run this "
                "comparison lacks. Only a file read whole and shown not to be a "
                "judge_groundedness log (another task's log; a whole JSON document or zip "
                "archive with no Inspect log in it) fails nothing."
            ),
            listing=LEFT_OUT_LIST,
        )
    ]


def _header(runs: Runs, gate: GateResult, partial: bool) -> Section:
    cases = runs.samples["case"].nunique()
    epochs = sorted({int(e) for e in runs.logs["epochs"].fillna(1)})
    return Section(
        title="Judge comparison: judge_groundedness",
        key="header",
        lines=_partial(gate) if partial else [],
        bullets=[
            f"Versions: {' → '.join(runs.versions)}",
            f"Judge models: {', '.join(runs.models)}",
            f"Cases: {cases}; epochs per run: {', '.join(str(e) for e in epochs)}",
            "Logs: " + ", ".join(sorted({Path(str(p)).name for p in runs.logs["log"]})),
        ],
        tables=_left_out(runs),
    )


def _tokens(runs: Runs, summaries: list[RunSummary]) -> Section:
    """Each run's tokens and cost per case-epoch judged, from its log's usage."""

    def _dollars(cost: float) -> str:
        return "n/a (no price file)" if math.isnan(cost) else f"${cost:,.4f}"

    cases = {(s.version, s.model): s.case_epochs + s.errored for s in summaries}
    rows = []
    for row in runs.logs.itertuples():
        n = cases.get((str(row.version), str(row.model)), 0)
        if n:
            rows.append(
                [
                    str(row.version),
                    str(row.model),
                    f"{int(row.prompt_tokens) / n:,.0f}",
                    f"{int(row.completion_tokens) / n:,.0f}",
                    _dollars(float(row.total_cost)),
                    _dollars(float(row.total_cost) / n * 1000),
                ]
            )
    return Section(
        title="Token use per case",
        key="tokens",
        lines=[
            "Prompt and completion tokens per judged case-epoch, from each run's usage: a "
            "longer prompt costs on every answer the judge audits. Cost is each run's "
            "ModelUsage.total_cost, which Inspect fills from a price file (judge-matrix "
            "--model-cost-config); per 1,000 audited answers it is the run's cost over its "
            "case-epochs."
        ],
        tables=[
            Table(
                [
                    "Version",
                    "Model",
                    "Prompt tokens",
                    "Completion tokens",
                    "Cost",
                    "Cost per 1,000 answers",
                ],
                rows,
            )
        ],
    )


def _notes(runs: Runs, resampling: Resampling) -> Section:
    return Section(
        title="Notes",
        key="notes",
        bullets=[
            "Intervals are 95 %: Wilson score for accuracy, judge-failure rate, precision, "
            "recall and the unstable share; percentile bootstrap over cases "
            f"({resampling.resamples} resamples, seed {resampling.seed}) for balanced accuracy, "
            "F1, kappa, claim precision and recall, span precision, recall and F1, accuracy change "
            "and consistency.",
            "Over several epochs a case contributes the share of its epochs to each count, "
            "and intervals treat the case, not the epoch, as the unit.",
            *runs.notes,
        ],
    )


def sections(report: Report, gate: GateResult) -> list[Section]:
    """The whole report's sections: the one place that reads the whole report, handing each
    feature's sections that feature's results."""
    runs, verdicts = report.runs, report.verdicts
    return [
        _header(runs, gate, verdicts.partial),
        # First after the title: the question the matrix was run to answer.
        *deploy_sections(report.deployment),
        # Where asked for: the thresholds behind the deploy decision's selective candidates.
        *(
            escalation_sections(report.escalation, report.humans.ceiling if report.humans else None)
            if report.escalation
            else []
        ),
        gate_section(gate),
        *verdict_sections(verdicts, runs),
        *graded_sections(report.graded, verdicts.transitions, runs.models),
        *panel_sections(report.panel),
        *([human_section(report.humans)] if report.humans else []),
        *attack_sections(report.attacks),
        _tokens(runs, verdicts.summaries),
        *stability_sections(verdicts),
        _notes(runs, report.resampling),
    ]
