"""judge-compare: read judge_groundedness logs, write the report, and gate on it.

    judge-compare logs/matrix                  # Markdown on stdout, files in reports/
    judge-compare logs/matrix --allow conv-004 --allow-file known-regressions.txt
    judge-compare logs/matrix --partial        # a --limit run on the cases it holds
    judge-compare logs/matrix --max-cost-per-1k 2 --min-recall 0.9 --require-pick
    judge-compare logs/matrix --min-agreement 0.9 --human-cost-per-review 0.5

Exit status: 0 the gate passed (and, with --require-pick, a candidate meets the deployment
constraints), 1 the gate failed or, with --require-pick, no candidate meets them, 2 the
input was unusable or the report could not be written, 70 an internal error (a bug, never
read as a failed gate: `farejudge.core.commands`). A log file found in a folder and not
compared (unreadable, of another task) is named on stderr and in the report, and the rest
are compared; a log named on the command line must be usable. The report's files are
replaced together or not at all.
"""

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

from farejudge.comparison.deploy.candidates import Deployment, DeployOptions
from farejudge.comparison.deploy.decision import decision_json
from farejudge.comparison.deploy.frontier import QUALITIES
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.deploy.verdict import verdict_lines
from farejudge.comparison.escalation.results import EscalationOptions, parse_cascade
from farejudge.comparison.logs.frame import LeftOut, LogsError, load_runs
from farejudge.comparison.report.build import build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import GateResult, evaluate
from farejudge.core.atomic_files import OutputError, write_together
from farejudge.core.commands import Command
from farejudge.core.decision_file import DECISION_FILE
from farejudge.scorers.escalation_options import (
    OptionError,
    check_alpha,
    check_delta,
    check_human_cost,
    check_min_agreement,
)
from farejudge.shared.document import html, markdown
from farejudge.shared.document.long_lists import (
    LISTING_FILE,
    MARKDOWN_ROWS,
    shown,
    write_listing,
)
from farejudge.shared.document.model import Section

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2


class UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-compare",
        description="Compare judge_groundedness runs across prompt versions and judge models, "
        "write a Markdown and an HTML report, and exit non-zero when the gate fails.",
    )
    parser.add_argument("logs", nargs="+", help="log folders or .eval/.json log files")
    parser.add_argument(
        "--out",
        default="reports",
        help="folder for report.md, report.html, cases.jsonl (every row of the long lists) "
        "and decision.json (which judge to deploy)",
    )
    parser.add_argument(
        "--allow",
        action="append",
        default=[],
        metavar="CASE_ID",
        help="a case the gate may let fail (repeatable)",
    )
    parser.add_argument(
        "--allow-file",
        type=Path,
        metavar="FILE",
        help="case ids the gate may let fail, one per line; '#' starts a comment",
    )
    parser.add_argument(
        "--partial",
        action="store_true",
        help="compare a run given fewer cases than its case set (--limit, --sample-id) on "
        "the cases it holds, instead of calling the gate incomplete",
    )
    parser.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument(
        "--target-recall",
        type=float,
        default=0.9,
        help="recall of ungrounded answers the graded score's cut-off must reach (0-1]",
    )
    parser.add_argument(
        "--panel",
        type=_names,
        metavar="M1,M2,M3",
        help="judge models to pool as a majority panel per version (default: every model of "
        "a version with runs from three or more)",
    )
    parser.add_argument(
        "--suspects-out",
        type=Path,
        metavar="DIR",
        help="write the gold cases a panel confidently disagrees with, as judge-intake input "
        "for blind re-labelling",
    )
    deploy = parser.add_argument_group(
        "which judge to deploy",
        "The pick: the best quality among the candidates (each version and model's run, and "
        "each panel) that meet every constraint given, at its point estimates.",
    )
    deploy.add_argument(
        "--quality",
        choices=QUALITIES,
        default="balanced_accuracy",
        help="what the pick and the frontier rank candidates on, at the operating point",
    )
    deploy.add_argument(
        "--max-cost-per-1k",
        type=float,
        metavar="USD",
        help="most a candidate may cost per 1,000 answers (from the logs' recorded cost; a "
        "candidate with none recorded is not checked)",
    )
    deploy.add_argument(
        "--min-recall",
        type=float,
        metavar="R",
        help="least recall of ungrounded answers at the operating point (0-1)",
    )
    deploy.add_argument(
        "--max-failure-rate",
        type=float,
        metavar="F",
        help="highest share of judge calls with no verdict (0-1)",
    )
    deploy.add_argument(
        "--max-p95-latency",
        type=float,
        metavar="SECONDS",
        help="slowest a candidate's 95th percentile judge call may be (its samples' working time)",
    )
    deploy.add_argument(
        "--require-pick",
        action="store_true",
        help="exit 1 when no candidate meets the constraints",
    )
    selective = parser.add_argument_group(
        "selective judging",
        "Each graded candidate decides alone the answers whose verdict it is sure of, its "
        "agreement with gold there at least 1 - alpha with probability at least 1 - delta, and "
        "escalates the rest (in a cascade to its next judge, then to a person); these "
        "candidates join the deploy decision. Any of these options turns it on "
        "(docs/escalation.md).",
    )
    selective.add_argument(
        "--alpha",
        metavar="A",
        help="error rate allowed on the answers a judge decides alone (default 0.1, or "
        "1 - --min-agreement)",
    )
    selective.add_argument(
        "--delta",
        metavar="D",
        help="chance, over the draw of the gold cases, that the guarantee fails (default 0.1)",
    )
    selective.add_argument(
        "--min-agreement",
        metavar="M",
        help="a constraint of the pick: the agreement with gold a candidate must guarantee at "
        "--delta (1 - alpha); the pick is then the cheapest candidate meeting every constraint",
    )
    selective.add_argument(
        "--human-cost-per-review",
        metavar="USD",
        help="what a person's review of one escalated answer costs (without it, a cost with "
        "reviews in it is unknown)",
    )
    selective.add_argument(
        "--cascade",
        action="append",
        metavar="V/M,V/M[,V/M]",
        help="a cascade of two or three graded candidates in the order asked, each VERSION/MODEL "
        "(VERSION/panel for a version's panel), then a person (repeatable; default: every chain "
        "of two or three graded runs of one version, cheapest first)",
    )
    parser.add_argument("--quiet", action="store_true", help="do not print the Markdown")
    return parser


def _typed(value: str) -> float | str:
    """A number as typed, or the text itself for the option's check to quote."""
    try:
        return float(value)
    except ValueError:
        return value


def _escalation(args: argparse.Namespace) -> EscalationOptions | None:
    """Selective judging's options, checked; None where none of them is given."""
    given = (args.alpha, args.delta, args.min_agreement, args.human_cost_per_review, args.cascade)
    if all(value is None for value in given):
        return None
    try:
        alpha = None if args.alpha is None else check_alpha(_typed(args.alpha))
        delta = 0.1 if args.delta is None else check_delta(_typed(args.delta))
        least = None
        if args.min_agreement is not None:
            least = check_min_agreement(_typed(args.min_agreement))
        human = None
        if args.human_cost_per_review is not None:
            human = check_human_cost(_typed(args.human_cost_per_review))
    except OptionError as err:
        raise UsageError(str(err)) from err
    if least is not None:
        # Rounded: 1 - 0.9 is 0.09999999999999998 in binary.
        implied = round(1 - least, 12)
        if alpha is not None and not math.isclose(alpha, implied):
            raise UsageError(
                f"--alpha {args.alpha} and --min-agreement {args.min_agreement}: the minimum "
                "agreement is 1 - alpha; give one of them"
            )
        alpha = implied
    cascades = None if args.cascade is None else tuple(parse_cascade(c) for c in args.cascade)
    return EscalationOptions(
        alpha=0.1 if alpha is None else alpha,
        delta=delta,
        min_agreement=least,
        human_cost_per_review=human,
        cascades=cascades,
    )


def _constraints(args: argparse.Namespace, selective: EscalationOptions | None) -> Constraints:
    for flag, value, low, high in (
        ("--max-cost-per-1k", args.max_cost_per_1k, 0.0, math.inf),
        ("--min-recall", args.min_recall, 0.0, 1.0),
        ("--max-failure-rate", args.max_failure_rate, 0.0, 1.0),
        ("--max-p95-latency", args.max_p95_latency, 0.0, math.inf),
    ):
        # Written so that NaN, which compares false with everything, is refused too.
        if value is not None and not low <= value <= high:
            what = f"must be in [{low:g}, {high:g}]" if high < math.inf else "must be 0 or more"
            raise UsageError(f"{flag} {value:g}: {what}")
    least = selective.min_agreement if selective else None
    return Constraints(
        max_cost_per_1k=args.max_cost_per_1k,
        min_recall=args.min_recall,
        max_failure_rate=args.max_failure_rate,
        max_p95_latency=args.max_p95_latency,
        min_agreement=least,
        delta=selective.delta if selective and least is not None else None,
    )


def _deploy_line(deployment: Deployment, require_pick: bool) -> str:
    pick, preferred = deployment.pick, deployment.preferred
    if pick is None:
        demand = " (--require-pick: exit 1)" if require_pick else ""
        return f"deploy: no pick{demand}: {verdict_lines(deployment)[0]}"
    if preferred is not None and preferred is not pick:
        return (
            f"deploy: pick {pick.name}; prefer {preferred.name}: the pick is not "
            f"significantly better, and {preferred.name} is {deployment.preference}"
        )
    return f"deploy: pick {pick.name}"


def _names(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _allowed(cases: list[str], allow_file: Path | None) -> set[str]:
    allowed = set(cases)
    if allow_file is not None:
        try:
            text = allow_file.read_text(encoding="utf-8")
        except OSError as err:
            raise UsageError(f"--allow-file {allow_file}: {err.strerror}") from err
        allowed |= {line.split("#")[0].strip() for line in text.splitlines()} - {""}
    return allowed


def _gate_lines(gate: GateResult) -> list[str]:
    partial = [f"  partial: {line}" for line in gate.partial]
    if gate.passed:
        passed = f"gate: passed ({len(gate.allowed)} allowed)" if gate.allowed else "gate: passed"
        return [passed, *partial]
    reasons, more = shown([f"  {v.reason}" for v in gate.violations], "gate", MARKDOWN_ROWS)
    return [f"gate: {gate.status} ({len(gate.violations)})", *partial, *reasons] + (
        [f"  {more}"] if more else []
    )


def _left_out_lines(left_out: Sequence[LeftOut]) -> list[str]:
    return [f"judge-compare: left out {item.log}: {item.why}" for item in left_out]


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


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.resamples < 1:
            raise UsageError("--resamples must be at least 1")
        if not 0 < args.target_recall <= 1:
            raise UsageError(f"--target-recall {args.target_recall}: must be in (0, 1]")
        selective = _escalation(args)
        deploy = DeployOptions(quality=args.quality, constraints=_constraints(args, selective))
        allowed = _allowed(args.allow, args.allow_file)
        runs = load_runs(args.logs)
        # Named before anything else can fail: a file left out is news whatever follows.
        for line in _left_out_lines(runs.left_out):
            print(line, file=sys.stderr)
        report = build_report(
            runs,
            Resampling(args.resamples, args.seed),
            partial=args.partial,
            target_recall=args.target_recall,
            panel=args.panel,
            deploy=deploy,
            escalation=selective,
        )
        gate = evaluate(report.verdicts, runs, allowed)
        parts = sections(report, gate)
        text = markdown.render(parts)
        chosen = decision_json(report.deployment)
        written = _write_report(Path(args.out), text, html.render(parts), parts, chosen)
        suspects: list[str] = []
        if args.suspects_out:
            # Only here: the export reads cases through the labelling tools, whose imports
            # (Hugging Face datasets) would add a second to every judge-compare.
            from farejudge.comparison.panel.suspects_export import export_lines, export_suspects

            try:
                export = export_suspects(report.panel.suspects, report.runs, args.suspects_out)
            except OSError as err:
                raise UsageError(f"--suspects-out {args.suspects_out}: {err.strerror}") from err
            suspects = export_lines(export, args.suspects_out)
    except LogsError as err:
        lines = [*_left_out_lines(err.left_out), f"judge-compare: error: {err}"]
        print("\n".join(lines), file=sys.stderr)
        return EXIT_INPUT
    except (UsageError, OutputError) as err:
        print(f"judge-compare: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    if not args.quiet:
        print(text)
    print(f"report: {', '.join(str(path) for path in written)}", file=sys.stderr)
    print(
        "\n".join(
            [*suspects, _deploy_line(report.deployment, args.require_pick), *_gate_lines(gate)]
        ),
        file=sys.stderr,
    )
    # Either failure fails the run: CI that asks for a pick must also have a passing gate.
    unpicked = args.require_pick and report.deployment.pick is None
    return EXIT_OK if gate.passed and not unpicked else EXIT_GATE


main = Command(
    "judge-compare",
    {
        EXIT_OK: "the gate passed (and, with --require-pick, a candidate meets the deployment "
        "constraints)",
        EXIT_GATE: "the gate failed, or with --require-pick no candidate meets them",
        EXIT_INPUT: "input it cannot use, or a report it cannot write: one line, the previous "
        "report as it was",
    },
    run,
)
