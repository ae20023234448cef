"""Load run: 5,000 synthetic cases on a mock judge at high concurrency; nothing lost or doubled.

    python benchmarks/load_run.py                  # 5,000 cases, 1,000 at a time
    python benchmarks/load_run.py --cases 20000 --concurrency 2000

Generates the cases into a temporary folder, runs the eval on `mockllm`, reads the log back one
sample at a time, and checks that the ids are exactly the cases, once each, every one scored.
Prints wall time and peak RSS; exits 1 if anything was lost, duplicated or left unscored.
"""

import argparse
import sys
import tempfile
from pathlib import Path

from record import add_record_option, recording

from farejudge.testing.concurrency_run import run_load


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=1000)
    add_record_option(parser)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work_dir:
        report = run_load(args.cases, Path(work_dir), args.concurrency)
    print(f"cases:              {report.cases}")
    print(f"samples in the log: {report.logged} ({report.completed_samples} completed)")
    print(f"missing:            {len(report.missing)}")
    print(f"duplicated:         {len(report.duplicated)}")
    print(f"not in the cases:   {len(report.unexpected)}")
    print(f"unscored:           {len(report.unscored)}")
    print(f"verdict accuracy:   {report.verdict_accuracy:.3f} (the mock judge echoes gold)")
    print(f"wall time:          {report.wall_seconds:.1f} s")
    print(f"peak RSS:           {report.peak_rss_mb:.0f} MB")
    print("nothing lost" if report.nothing_lost else "LOST OR DUPLICATED SAMPLES")
    return 0 if report.nothing_lost and report.verdict_accuracy == 1.0 else 1


if __name__ == "__main__":
    with recording("load_run"):
        status = main()
    sys.exit(status)
