"""Time judge-compare on 3 versions x 2 judge models x 3 epochs of the full gold set.

Builds the logs on mockllm first (scripted judges that get a version-dependent share of
cases wrong, some flaky between epochs, a few with no verdict), unless --log-dir already
holds them, then times the report. Prints figures only (no pass/fail):

    python benchmarks/bench_compare.py                     # logs in a temporary folder
    python benchmarks/bench_compare.py --log-dir logs/bench --repeat 3

The target is under 10 s for the whole command, start-up included.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from farejudge.comparison import html, markdown
from farejudge.comparison.analysis import build_report
from farejudge.comparison.gate import evaluate
from farejudge.comparison.load import load_runs
from farejudge.comparison.report import sections
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import version_names
from farejudge.simulate.judge_runs import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b"]
EPOCHS = 3
# Percent of cases each version gets wrong; later versions do better.
WRONG = {"v1": 25, "v2": 15, "v3": 10}


def script(version: str, model: str, case_ids: list[str]) -> dict[str, str]:
    """A deterministic mix of wrong, flaky and failed cases for one run."""
    out = {}
    for case in case_ids:
        roll = zlib.crc32(f"{version}/{model}/{case}".encode()) % 100
        if roll < 2:
            out[case] = "failure"
        elif roll < 7:
            out[case] = "flaky"
        elif roll < 7 + WRONG.get(version, 10):
            out[case] = "wrong"
    return out


def build_logs(log_dir: Path) -> float:
    case_ids = [c.id for c in load_cases(DEFAULT_CASES)]
    start = time.perf_counter()
    for version in version_names():
        for model in MODELS:
            run_version(
                version, script(version, model, case_ids), DEFAULT_CASES, log_dir, model, EPOCHS
            )
    return time.perf_counter() - start


def time_in_process(log_dir: Path, out: Path, resamples: int) -> dict[str, float]:
    marks = {}
    start = time.perf_counter()
    runs = load_runs([str(log_dir)])
    marks["read logs (evals_df + samples_df)"] = time.perf_counter() - start
    t = time.perf_counter()
    report = build_report(runs, resamples=resamples)
    marks["figures and intervals"] = time.perf_counter() - t
    t = time.perf_counter()
    parts = sections(report, evaluate(report, set()))
    (out / "report.md").write_text(markdown.render(parts), encoding="utf-8")
    marks["markdown"] = time.perf_counter() - t
    t = time.perf_counter()
    (out / "report.html").write_text(html.render(report, parts), encoding="utf-8")
    marks["html with plots"] = time.perf_counter() - t
    marks["total in process"] = time.perf_counter() - start
    samples = len(runs.samples)
    print(
        f"{samples} sample-epochs, {runs.samples['case'].nunique()} cases, "
        f"{len(runs.versions)} versions x {len(runs.models)} models"
    )
    return marks


def time_command(log_dir: Path, out: Path, resamples: int) -> tuple[float, int]:
    """The console script end to end, interpreter start-up and imports included."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from farejudge.comparison.cli import main; main()",
            str(log_dir),
            "--out",
            str(out),
            "--quiet",
            "--resamples",
            str(resamples),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--log-dir", type=Path, help="reuse or build the logs here")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions")
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    log_dir = args.log_dir or scratch / "logs"
    out = scratch / "report"
    out.mkdir()
    try:
        if not any(log_dir.glob("*.eval")):
            print(f"building logs in {log_dir} ...")
            print(f"built {len(version_names()) * len(MODELS)} runs in {build_logs(log_dir):.1f} s")
        for i in range(args.repeat):
            print(f"\nrun {i + 1}")
            for name, seconds in time_in_process(log_dir, out, args.resamples).items():
                print(f"  {name:<36} {seconds:6.2f} s")
            seconds, code = time_command(log_dir, out, args.resamples)
            print(f"  {'judge-compare command (exit ' + str(code) + ')':<36} {seconds:6.2f} s")
        size = (out / "report.html").stat().st_size
        print(f"\nreport.html: {size / 1024:.0f} KiB")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
