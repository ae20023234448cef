"""Time judge-compare with graded figures: 3 versions x 3 judge models x 3 epochs, gold set.

Builds the logs on mockllm (scripted judges that get a version-dependent share of cases
wrong, some flaky between epochs, a few with no verdict), gives every scored sample a graded
P(ungrounded) as a judge with logprobs would, then times the report: in process, step by
step, and the console script end to end. Prints figures only (no pass/fail):

    python benchmarks/bench_graded.py                      # logs in a temporary folder
    python benchmarks/bench_graded.py --log-dir logs/bench-graded --repeat 3

The target is under 10 s for the whole judge-compare command, start-up included.
"""

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

from inspect_ai.log import read_eval_log, write_eval_log
from record import add_record_option, recording

from farejudge.comparison.cases import per_case
from farejudge.comparison.graded.plots import graded as graded_plot
from farejudge.comparison.graded.results import graded_results
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.report.build import build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import version_names
from farejudge.shared.document import html, markdown
from farejudge.testing.scripted_runs import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
EPOCHS = 3
# Percent of cases each version gets wrong; later versions do better.
WRONG = {"v1": 25, "v2": 15, "v3": 10}
# How far apart each version's P(ungrounded) puts the two classes; later versions rank better.
SEPARATION = {"v1": 0.2, "v2": 0.35, "v3": 0.5}


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


def graded(version: str, model: str, case: str, epoch: int, gold: int) -> float:
    noise = zlib.crc32(f"{version}/{model}/{case}/{epoch}".encode()) % 1000 / 1000
    shift = SEPARATION.get(version, 0.3)
    return round(shift * gold + (1 - shift) * noise, 3)


def add_graded_scores(log: Path) -> None:
    written = read_eval_log(str(log))
    version = str((written.eval.metadata or {})["prompt_version"])
    for sample in written.samples or []:
        score = (sample.scores or {}).get("verdict_agreement")
        if score is None or not isinstance(score.value, dict):
            continue
        gold = 0 if json.loads(str(sample.target))["grounded"] else 1
        score.value["p_ungrounded"] = graded(
            version, written.eval.model, str(sample.id), sample.epoch, gold
        )
        score.value["graded_source"] = "logprobs"
    write_eval_log(written, str(log))


def build_logs(log_dir: Path) -> float:
    case_ids = [c.id for c in load_cases(DEFAULT_CASES)]
    start = time.perf_counter()
    for version in version_names():
        for model in MODELS:
            run_version(
                version, script(version, model, case_ids), DEFAULT_CASES, log_dir, model, EPOCHS
            )
    for log in sorted(log_dir.glob("*.eval")):
        add_graded_scores(log)
    return time.perf_counter() - start


def time_in_process(log_dir: Path, out: Path, resamples: int) -> dict[str, float]:
    marks = {}
    t = time.perf_counter()
    runs = load_runs([str(log_dir)])
    marks["read logs"] = time.perf_counter() - t
    t = time.perf_counter()
    report = build_report(runs, Resampling(resamples))
    marks["figures and intervals (all)"] = time.perf_counter() - t
    t = time.perf_counter()
    graded_results(per_case(runs.samples), runs.versions, runs.models, Resampling(resamples, 0))
    marks["  of which graded figures"] = time.perf_counter() - t
    t = time.perf_counter()
    parts = sections(report, evaluate(report.verdicts, report.runs, set()))
    (out / "report.md").write_text(markdown.render(parts), encoding="utf-8")
    marks["markdown"] = time.perf_counter() - t
    t = time.perf_counter()
    (out / "report.html").write_text(html.render(parts), encoding="utf-8")
    marks["html with plots (all)"] = time.perf_counter() - t
    t = time.perf_counter()
    graded_plot(report.graded, runs.models)
    marks["  of which the graded plot"] = time.perf_counter() - t
    marks["total in process"] = sum(v for k, v in marks.items() if not k.startswith(" "))
    return marks


def time_command(log_dir: Path, out: Path, resamples: int) -> tuple[float, int]:
    """The console script end to end, interpreter start-up and imports included."""
    start = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from farejudge.comparison.cli import main; raise SystemExit(main())",
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
    add_record_option(parser)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="bench-graded-"))
    log_dir = args.log_dir or scratch / "logs"
    out = scratch / "report"
    out.mkdir()
    try:
        if not any(log_dir.glob("*.eval")):
            print(f"building logs in {log_dir} ...")
            runs = len(version_names()) * len(MODELS)
            print(f"built {runs} runs with graded scores in {build_logs(log_dir):.1f} s")
        for i in range(args.repeat):
            print(f"\nrun {i + 1}")
            for name, seconds in time_in_process(log_dir, out, args.resamples).items():
                print(f"  {name:<36} {seconds:6.2f} s")
            seconds, code = time_command(log_dir, out, args.resamples)
            print(f"  {'judge-compare command (exit ' + str(code) + ')':<36} {seconds:6.2f} s")
        md = (out / "report.md").read_text(encoding="utf-8")
        print(f"\ngraded section in the report: {'Graded score: ranking' in md}")
        print(f"report.html: {(out / 'report.html').stat().st_size / 1024:.0f} KiB")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    with recording("graded"):
        main()
