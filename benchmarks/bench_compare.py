"""Time judge-compare on the logs a run writes: 3 prompt versions x 1 judge model x 1 epoch.

For each case count, writes the logs unless --log-dir already holds them, then runs the
judge-compare command in a subprocess and prints figures only (no pass/fail):

    python benchmarks/bench_compare.py                       # 144, 10,000 and 100,000 cases
    python benchmarks/bench_compare.py --cases 10000,100000 --log-dir /tmp/bench-logs
    python benchmarks/bench_compare.py --quick --cases 144,2000 --repeat 3

Real-log mode (the default): a base run per version is the task through Inspect's `eval()`
on a scripted mockllm judge, over --base-copies copies of the shipped cases with their own
ids, its log as Inspect writes it (messages, events, summaries); each size's log repeats its
samples under new ids and case hashes (testing/run_logs.py). Quick mode (--quick) writes
synthetic logs instead (testing/synthetic_logs.py: a real run's header and scripted samples
without transcripts), faster to write and lighter to read than a run's.

Writing time is printed apart. Wall time is the whole command, interpreter start-up and
imports included; peak memory is the command's own maximum resident set (its rusage), and
"with workers" the largest sum of its and its worker processes' resident sets, sampled every
50 ms (pages a worker shares with its parent count twice: an upper bound).

Targets on a 2-core machine: 3 x 10,000 in 10 s or less; 3 x 100,000 in 60 s or less
with at most 1.5 GB peak.
"""

import argparse
import multiprocessing
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

from measure import run_measured
from record import add_record_option, recording

VERSIONS = ("v1", "v2", "v3")
Result = TypeVar("Result")


def _counts(values: list[str]) -> list[int]:
    found = [int(part) for value in values for part in value.split(",") if part.strip()]
    if any(n < 1 for n in found):
        raise SystemExit("--cases: give counts of 1 or more")
    return found


def _complete(folder: Path) -> bool:
    return len(list(folder.glob("*.eval"))) == len(VERSIONS)


def _written(folder: Path, seconds: float | None = None) -> str:
    """How long writing `folder` took, recorded beside it when it was written."""
    record = folder.with_name(folder.name + ".seconds")
    if seconds is not None:
        record.write_text(f"{seconds:.1f}\n")
    elif record.exists():
        seconds = float(record.read_text())
    return "time not recorded" if seconds is None else f"in {seconds:.0f} s"


def _apart(function: Callable[..., Result], *args: object) -> Result:
    """`function(*args)` in a child process. Writing the logs grows a process by gigabytes;
    a command forked from it would inherit that as its peak RSS (Linux counts the pages a
    child had at fork in its ru_maxrss), so the benchmark itself stays small."""
    with ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn")
    ) as pool:
        return pool.submit(function, *args).result()


def _write_runs(folder: Path, cases: int) -> None:
    from farejudge.testing.synthetic_logs import write_runs

    write_runs(folder, cases, VERSIONS)


def _base_runs(folder: Path, copies: int) -> list[str]:
    from farejudge.testing.run_logs import base_runs

    return [run.location for run in base_runs(folder, copies, VERSIONS)]


def _grow(base: list[str], folder: Path, cases: int) -> None:
    from farejudge.testing.run_logs import grow_log

    for log in base:
        grow_log(log, folder / Path(log).name, cases)


def quick_logs(root: Path, cases: int) -> tuple[Path, str]:
    """The folder of synthetic logs for `cases` cases, written unless there; seconds spent."""

    folder = root / f"quick-{cases}"
    if _complete(folder):
        return folder, ""
    shutil.rmtree(folder, ignore_errors=True)
    start = time.perf_counter()
    _apart(_write_runs, folder, cases)
    return folder, _written(folder, time.perf_counter() - start)


def base_logs(root: Path, copies: int) -> tuple[list[str], str]:
    """The base runs' logs (one per version), run unless there; seconds spent."""
    folder = root / f"base-{copies}"
    logs = sorted(str(p) for p in (folder / "logs").glob("*.eval"))
    if len(logs) == len(VERSIONS):
        return logs, ""
    shutil.rmtree(folder, ignore_errors=True)
    start = time.perf_counter()
    logs = _apart(_base_runs, folder, copies)
    return logs, _written(folder, time.perf_counter() - start)


def real_logs(root: Path, cases: int, base: list[str]) -> tuple[Path, str]:
    """The folder of logs for `cases` cases grown from the base runs, unless there."""
    folder = root / f"real-{cases}"
    if _complete(folder):
        return folder, ""
    shutil.rmtree(folder, ignore_errors=True)
    start = time.perf_counter()
    _apart(_grow, base, folder, cases)
    return folder, _written(folder, time.perf_counter() - start)


def run_command(logs: Path, out: Path, resamples: int) -> tuple[float, float, float, int]:
    """judge-compare end to end: wall seconds, peak RSS of the command itself and of it with
    its worker processes together (sampled every 50 ms), in MB, and its exit status."""
    measured = run_measured(
        [
            sys.executable,
            "-c",
            "from farejudge.comparison.cli import main; raise SystemExit(main())",
            str(logs),
            "--out",
            str(out),
            "--quiet",
            "--resamples",
            str(resamples),
        ]
    )
    return measured.wall, measured.peak, measured.with_workers, measured.code


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--cases",
        action="append",
        metavar="N[,N...]",
        help="case counts (repeatable, or comma-separated); default 144, 10000, 100000",
    )
    parser.add_argument("--log-dir", type=Path, help="reuse or write the logs here")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs per case count")
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="synthetic logs (no transcripts), not the logs a run writes",
    )
    parser.add_argument(
        "--base-copies",
        type=int,
        default=7,
        help="real-log mode: copies of the 144 shipped cases the base runs judge (default 7)",
    )
    parser.add_argument("--keep", type=Path, help="copy each size's report folder here")
    add_record_option(parser)
    args = parser.parse_args()
    counts = _counts(args.cases or ["144,10000,100000"])

    scratch = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    root = args.log_dir or scratch / "logs"
    print(f"mode: {'quick (synthetic logs, no transcripts)' if args.quick else 'real logs'}")
    try:
        base: list[str] = []
        if not args.quick:
            base, built = base_logs(root, args.base_copies)
            cases = 144 * args.base_copies
            when = "now" if built else "earlier"
            built = built or _written(root / f"base-{args.base_copies}")
            print(f"  (ran the task {when}: {len(VERSIONS)} runs of {cases:,} cases, {built})")
        print(
            f"{'cases':>8} {'sample-epochs':>14} {'wall s':>8} {'peak MB':>8} {'with workers':>12} "
            f"{'s per 1,000':>12} {'exit':>5}"
        )
        for cases in counts:
            logs, built = quick_logs(root, cases) if args.quick else real_logs(root, cases, base)
            when = "now" if built else "earlier"
            built = built or _written(logs)
            print(f"  (wrote {len(VERSIONS)} logs of {cases:,} cases {when}, {built})")
            sample_epochs = cases * len(VERSIONS)
            report = scratch / f"report-{cases}"
            for _ in range(args.repeat):
                wall, peak, tree, code = run_command(logs, report, args.resamples)
                per_thousand = wall / sample_epochs * 1000
                print(
                    f"{cases:>8,} {sample_epochs:>14,} {wall:>8.1f} {peak:>8.0f} {tree:>12.0f} "
                    f"{per_thousand:>12.3f} {code:>5}",
                    flush=True,
                )
            sizes = ", ".join(
                f"{p.name} {p.stat().st_size / 1024:,.0f} KiB" for p in sorted(report.iterdir())
            )
            print(f"  {sizes}")
            if args.keep:
                shutil.copytree(report, args.keep / f"report-{cases}", dirs_exist_ok=True)
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    with recording("compare"):
        main()
