"""The embedded main job, quiet and beside a busy process, against raw llama-cpp-python.

    python benchmarks/bench_main_job.py                # the 144 shipped cases, 1 round
    python benchmarks/bench_main_job.py --cases 24     # a quick look
    python benchmarks/bench_main_job.py --rounds 2     # every other round runs backwards

The task is the main job as a user runs it: `inspect eval evals/judge_groundedness.py` on the
in-process `gguf/smollm2-135m` judge, in a child process (start-up, model load, native check,
judging, scoring and the log all counted), its wall time measured. Raw is the model's own work
on the same rendered prompts, in this process: `Llama.create_chat_completion` loaded as the
provider loads it but as one context (extra buffer types off, each call on the CPUs the
provider's governor finds free), temperature 0, no grammar, no logits processor, 48 new tokens,
consecutive calls (so the instructions' KV prefix is reused, as in the task). Each runs
quiet and again beside one CPU-bound process (`python -c "while True: pass"`), which the
benchmark starts and stops.

Prints, per run, the wall time, the load average before and after (other people's work on a
shared machine shows there), and where the task's time went per case from llama.cpp's own
counters in its log (prompt tokens processed, decode tokens, and the rest: sampling, grammar,
logprobs, Inspect); then the ratios task/raw (target <= 1.6) and busy/quiet (target <= 2.5),
and the quiet task's time (target <= 4 min for the 144 cases on 2 cores). Figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage
from record import add_record_option, recording

from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.providers.gguf import GGUFModelAPI, messages_to_dicts
from farejudge.providers.gguf.llama_loader import load_llama
from farejudge.providers.gguf.threads import set_threads

REPO = Path(__file__).resolve().parents[1]
MODEL = "smollm2-135m"
RAW_TOKENS = 48
TARGET_RATIO = 1.6
TARGET_BUSY = 2.5
TARGET_QUIET_S = 240.0


@dataclass(frozen=True)
class Timing:
    wall_s: float
    load_before: float
    load_after: float
    note: str = ""


@contextmanager
def neighbour(busy: bool) -> Iterator[None]:
    """One CPU-bound process beside the block, when `busy`."""
    if not busy:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let it reach the scheduler before the clock starts
        yield
    finally:
        spinner.kill()
        spinner.wait()


def timed(run: Callable[[], str], busy: bool) -> Timing:
    with neighbour(busy):
        before = os.getloadavg()[0]
        started = time.perf_counter()
        note = run()
        wall = time.perf_counter() - started
        after = os.getloadavg()[0]
    return Timing(wall, before, after, note)


def task_prompts(cases: int) -> list[list[dict[str, str]]]:
    """The rendered messages of the task's first `cases` samples, as the task sends them."""
    samples = list(judge_groundedness().dataset)[:cases]
    prompts = []
    for sample in samples:
        assert not isinstance(sample.input, str)
        messages: list[ChatMessage] = list(sample.input)
        prompts.append(messages_to_dicts(messages))
    return prompts


def per_case_profile(log: EvalLog) -> str:
    """Where the task's time went per case, from llama.cpp's counters in the log."""
    samples = log.samples or []
    perf = [(s.output.metadata or {}).get("llama_cpp_perf") or {} for s in samples]
    n = max(1, len(samples))
    pp_tokens = sum(p.get("prompt_eval_tokens", 0) for p in perf) / n
    pp_s = sum(p.get("prompt_eval_ms", 0.0) for p in perf) / n / 1000
    gen_tokens = sum(p.get("eval_tokens", 0) for p in perf) / n
    gen_s = sum(p.get("eval_ms", 0.0) for p in perf) / n / 1000
    model_s = sum((s.output.time or 0.0) for s in samples) / n
    threads = Counter(p.get("n_threads") for p in perf)
    contexts = Counter(p.get("context") for p in perf)
    return (
        f"per case: prompt {pp_tokens:.0f} tok in {pp_s:.2f} s, decode {gen_tokens:.0f} tok "
        f"in {gen_s:.2f} s, rest of the call {model_s - pp_s - gen_s:.2f} s "
        "(sampling, grammar, logprobs; contexts side by side overlap); cases by thread count "
        + ", ".join(f"{count}: {cases}" for count, cases in sorted(threads.items(), key=str))
        + "; by context "
        + ", ".join(f"{index}: {cases}" for index, cases in sorted(contexts.items(), key=str))
    )


def run_task(cases: int, log_dir: Path) -> str:
    command = [
        sys.executable,
        "-m",
        "inspect_ai",
        "eval",
        "evals/judge_groundedness.py",
        "--model",
        f"gguf/{MODEL}",
        "--limit",
        str(cases),
        "--log-dir",
        str(log_dir),
        "--display",
        "none",
    ]
    subprocess.run(command, cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    (path,) = sorted(log_dir.glob("*.eval"))
    log = read_eval_log(str(path))
    if log.status != "success" or len(log.samples or []) != cases:
        raise SystemExit(f"{path}: {log.status}, {len(log.samples or [])} samples")
    return per_case_profile(log)


def run_raw(prompts: Sequence[list[dict[str, str]]]) -> str:
    provider = GGUFModelAPI(MODEL)
    llm = load_llama(
        provider.model_path, extra_bufts=False, verbose=False, **provider.llama_kwargs()
    )
    tokens = 0
    try:
        for messages in prompts:
            if provider.governor is not None:
                set_threads(llm, provider.governor.choose())
            response: Any = llm.create_chat_completion(
                messages=messages,  # type: ignore[arg-type]
                max_tokens=RAW_TOKENS,
                temperature=0.0,
            )
            tokens += int(response["usage"]["completion_tokens"])
    finally:
        llm.close()
    return f"{tokens / max(1, len(prompts)):.0f} new tokens a case"


def line(label: str, timing: Timing) -> str:
    return (
        f"{label:<11} {timing.wall_s:8.1f} s   load {timing.load_before:4.2f} -> "
        f"{timing.load_after:4.2f}   {timing.note}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cases", type=int, default=144, help="the first N shipped cases")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--log-dir", type=Path, help="keep the task's logs here (default: a temporary folder)"
    )
    add_record_option(parser)
    args = parser.parse_args(argv)
    prompts = task_prompts(args.cases)
    cases = len(prompts)
    print(f"{cases} cases, gguf/{MODEL}, {os.cpu_count()} CPUs, raw: {RAW_TOKENS} new tokens")
    results: dict[str, list[float]] = {
        "task quiet": [],
        "task busy": [],
        "raw quiet": [],
        "raw busy": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench_main_job_") as scratch:
        tmp = args.log_dir or Path(scratch)
        for round_no in range(args.rounds):
            runs: list[tuple[str, Callable[[], str], bool]] = []
            for busy in (False, True):
                condition = "busy" if busy else "quiet"
                log_dir = tmp / f"r{round_no}-{condition}"
                runs.append((f"task {condition}", partial(run_task, cases, log_dir), busy))
                runs.append((f"raw {condition}", partial(run_raw, prompts), busy))
            if round_no % 2:
                runs.reverse()
            print(f"\nround {round_no + 1}")
            for label, run, with_neighbour in runs:
                timing = timed(run, with_neighbour)
                results[label].append(timing.wall_s)
                print(line(label, timing), flush=True)
    summary = {label: statistics.median(walls) for label, walls in results.items()}
    quiet, busy_s, raw = summary["task quiet"], summary["task busy"], summary["raw quiet"]
    print(f"\nmedians over {args.rounds} round(s), {cases} cases:")
    print(
        f"  task quiet {quiet:.1f} s ({quiet / cases:.2f} s a case); "
        f"target for 144 cases <= {TARGET_QUIET_S:.0f} s"
    )
    print(f"  task busy  {busy_s:.1f} s")
    print(f"  raw quiet  {raw:.1f} s, raw busy {summary['raw busy']:.1f} s")
    print(
        f"  task/raw quiet {quiet / raw:.2f} (target <= {TARGET_RATIO}), "
        f"busy {busy_s / summary['raw busy']:.2f}"
    )
    print(f"  busy/quiet (task) {busy_s / quiet:.2f} (target <= {TARGET_BUSY})")
    print(
        "load average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg())
    )


if __name__ == "__main__":
    with recording("main_job"):
        main()
