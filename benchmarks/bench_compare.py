"""Time judge-compare on synthetic logs: 3 prompt versions x 1 judge model x 1 epoch.

For each case count, writes the logs (testing/synthetic_logs.py: a real run's header, the
task's samples, scripted verdicts) unless --log-dir already holds them, then runs the
judge-compare command in a subprocess and prints figures only (no pass/fail):

    python benchmarks/bench_compare.py                       # 144, 10,000 and 100,000 cases
    python benchmarks/bench_compare.py --cases 2000 --cases 10000 --log-dir /tmp/bench-logs
    python benchmarks/bench_compare.py --cases 144,2000 --repeat 3

Wall time is the whole command, interpreter start-up and imports included; peak memory is
the command's own maximum resident set (its rusage).

Targets on a 2-core machine: 3 x 10,000 in 10 s or less; 3 x 100,000 in 60 s or less
with at most 1.5 GB peak.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from farejudge.testing.synthetic_logs import write_runs

VERSIONS = ("v1", "v2", "v3")


def _counts(values: list[str]) -> list[int]:
    found = [int(part) for value in values for part in value.split(",") if part.strip()]
    if any(n < 1 for n in found):
        raise SystemExit("--cases: give counts of 1 or more")
    return found


def logs_for(root: Path, cases: int) -> tuple[Path, float]:
    """The folder of logs for `cases` cases, written unless there; seconds spent writing."""
    folder = root / f"cases-{cases}"
    if len(list(folder.glob("*.eval"))) == len(VERSIONS):
        return folder, 0.0
    shutil.rmtree(folder, ignore_errors=True)
    start = time.perf_counter()
    write_runs(folder, cases, VERSIONS)
    return folder, time.perf_counter() - start


def run_command(logs: Path, out: Path, resamples: int) -> tuple[float, float, int]:
    """judge-compare end to end: wall seconds, peak RSS in MB, exit status."""
    command = [
        sys.executable,
        "-c",
        "from farejudge.comparison.cli import main; main()",
        str(logs),
        "--out",
        str(out),
        "--quiet",
        "--resamples",
        str(resamples),
    ]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # wait4 gives this child's own rusage; RUSAGE_CHILDREN would be the maximum over all.
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    assert child.stderr is not None
    err = child.stderr.read().decode(errors="replace")
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(err, file=sys.stderr)
    # ru_maxrss is in kilobytes on Linux.
    return wall, usage.ru_maxrss / 1024, code


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
    args = parser.parse_args()
    counts = _counts(args.cases or ["144,10000,100000"])

    scratch = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    root = args.log_dir or scratch / "logs"
    try:
        print(
            f"{'cases':>8} {'sample-epochs':>14} {'wall s':>8} {'peak MB':>8} "
            f"{'s per 1,000':>12} {'exit':>5}"
        )
        for cases in counts:
            logs, built = logs_for(root, cases)
            if built:
                print(f"  (wrote {len(VERSIONS)} logs of {cases:,} cases in {built:.0f} s)")
            sample_epochs = cases * len(VERSIONS)
            for _ in range(args.repeat):
                wall, peak, code = run_command(logs, scratch / f"report-{cases}", args.resamples)
                per_thousand = wall / sample_epochs * 1000
                print(
                    f"{cases:>8,} {sample_epochs:>14,} {wall:>8.1f} {peak:>8.0f} "
                    f"{per_thousand:>12.3f} {code:>5}"
                )
            report = scratch / f"report-{cases}"
            sizes = ", ".join(
                f"{p.name} {p.stat().st_size / 1024:,.0f} KiB" for p in sorted(report.iterdir())
            )
            print(f"  {sizes}")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
