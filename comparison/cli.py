"""judge-compare: read judge_groundedness logs, write the report, and gate on it.

    judge-compare logs/matrix                  # Markdown on stdout, files in reports/
    judge-compare logs/matrix --allow conv-004 --allow-file known-regressions.txt
    judge-compare logs/matrix --partial        # a --limit run on the cases it holds

Exit status: 0 the gate passed, 1 it failed, 2 the input was unusable.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from farejudge.comparison import html, markdown
from farejudge.comparison.analysis import build_report
from farejudge.comparison.gate import GateResult, evaluate
from farejudge.comparison.load import LogsError, load_runs
from farejudge.comparison.report import sections

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
    parser.add_argument("--out", default="reports", help="folder for report.md and report.html")
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
    parser.add_argument("--quiet", action="store_true", help="do not print the Markdown")
    return parser


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
    return [f"gate: {gate.status} ({len(gate.violations)})", *partial] + [
        f"  {v.reason}" for v in gate.violations
    ]


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.resamples < 1:
            raise UsageError("--resamples must be at least 1")
        allowed = _allowed(args.allow, args.allow_file)
        report = build_report(
            load_runs(args.logs), resamples=args.resamples, seed=args.seed, partial=args.partial
        )
        gate = evaluate(report, allowed)
        parts = sections(report, gate)
        text = markdown.render(parts)
        out = Path(args.out)
        try:
            out.mkdir(parents=True, exist_ok=True)
            (out / "report.md").write_text(text, encoding="utf-8")
            (out / "report.html").write_text(html.render(report, parts), encoding="utf-8")
        except OSError as err:
            raise UsageError(f"--out {out}: {err.strerror}") from err
    except (UsageError, LogsError) as err:
        print(f"judge-compare: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    if not args.quiet:
        print(text)
    print(f"report: {out / 'report.md'}, {out / 'report.html'}", file=sys.stderr)
    print("\n".join(_gate_lines(gate)), file=sys.stderr)
    return EXIT_OK if gate.passed else EXIT_GATE


def main() -> None:
    sys.exit(run())
