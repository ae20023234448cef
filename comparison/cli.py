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

import sys
from collections.abc import Sequence

from farejudge.comparison.deploy.candidates import Deployment
from farejudge.comparison.deploy.verdict import verdict_lines
from farejudge.comparison.logs.frame import LeftOut, LogsError
from farejudge.comparison.report.compare import UsageError, compare
from farejudge.comparison.report.options import compare_options, parser
from farejudge.comparison.verdicts.gate import GateResult
from farejudge.core.atomic_files import OutputError
from farejudge.core.commands import Command
from farejudge.shared.document.long_lists import MARKDOWN_ROWS, shown

EXIT_OK, EXIT_GATE, EXIT_INPUT = 0, 1, 2


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


def _announce(left_out: Sequence[LeftOut]) -> None:
    for line in _left_out_lines(left_out):
        print(line, file=sys.stderr)


def run(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        done = compare(compare_options(args), _announce)
    except LogsError as err:
        lines = [*_left_out_lines(err.left_out), f"judge-compare: error: {err}"]
        print("\n".join(lines), file=sys.stderr)
        return EXIT_INPUT
    except (UsageError, OutputError) as err:
        print(f"judge-compare: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    if not args.quiet:
        print(done.text)
    print(f"report: {', '.join(str(path) for path in done.files)}", file=sys.stderr)
    deployment = done.report.deployment
    lines = [*done.suspects, _deploy_line(deployment, args.require_pick), *_gate_lines(done.gate)]
    print("\n".join(lines), file=sys.stderr)
    # Either failure fails the run: CI that asks for a pick must also have a passing gate.
    unpicked = args.require_pick and deployment.pick is None
    return EXIT_OK if done.gate.passed and not unpicked else EXIT_GATE


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
