"""The task's cost per sample next to Inspect's own floor, side by side in one process.

    python benchmarks/bench_overhead.py                 # 2,000 synthetic cases, 3 rounds
    python benchmarks/bench_overhead.py --cases 500 --rounds 1
    python benchmarks/bench_overhead.py --suite metamorphic --cases 500
    python benchmarks/bench_overhead.py --cases-from shipped   # copies of the real cases
    python benchmarks/bench_overhead.py --instructions         # instructions, not seconds

Both runs judge the same rendered v3 prompts on the same mockllm judge, which answers each
case with its gold verdict. The cases are synthetic (short, one passage each), or with
`--cases-from shipped` copies of the 144 shipped cases under new ids (their real length:
several passages, prior turns, about 800 prompt tokens). The floor is a bare `Task(dataset,
generate(), match())` over the prompts, the task is `judge_groundedness` (load and validate
cases, render, generate, parse, score, review). The task runs twice more on a judge that
returns each token's logprobs with 5 alternatives when asked (as a provider does): `-T
graded=off` and `-T graded=logprobs`, whose ratio is what reading the graded score from
logprobs costs a sample (asking for them, the provider building them, reading P(ungrounded),
dropping them before the log). Each run goes once on 20 cases, untimed, before the rounds (the
process's first eval pays one-off imports). Rounds alternate the runs, and the best round of
each counts, because a shared 2-core machine slows some rounds at random (every other round
runs them backwards); the median of the rounds' own ratios is printed beside the ratio of the
bests, and the median ratio of the process's CPU time beside them. Prints figures only.

`--instructions` counts instead of timing: the floor and the task each run in a process of
their own under valgrind's cachegrind, once with the warm-up alone and once with the warm-up
and all the cases, and the difference is the instructions the cases cost. A count does not
move with the neighbours, the CPU's clock or the time of day: the same code gives the same
count, where a round's wall-time ratio swings by a third
(docs/performance.md#the-tasks-own-cost-per-sample). Inspect's
running metrics are off in those runs (`score_display=False`): it refreshes them on a wall
clock, so under valgrind, 12 times slower, it would refresh them 12 times as often; the final
metrics are computed as always. Needs valgrind (`apt-get install valgrind`); 2,000 cases take
minutes on 2 cores.
"""

import argparse
import gc
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    Model,
    ModelOutput,
    TopLogprob,
    get_model,
)
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from inspect_ai.tool import ToolChoice, ToolInfo
from record import add_record_option, recording

from farejudge.core.sample_case import GoldTarget
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import SUITES, suite_samples
from farejudge.testing.run_logs import copies, write_case_file
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import write_cases

# As many samples in flight as the load run uses per thousand: the figure is per-sample
# overhead, not waiting on a connection limit.
MAX_SAMPLES = 200
WARM_CASES = 20
# Roughly how a BPE tokenizer cuts a JSON verdict: words with their leading space, and
# punctuation on its own.
_TOKENS = re.compile(r" ?\w+| ?[^\w\s]+|\s+")
TOP_ALTERNATIVES = 5


def rendered(cases_file: Path, suite: str) -> list[Sample]:
    samples, _ = suite_samples(load_cases(cases_file), suite, load_prompt_version("v3"))
    return samples


def gold_replies(samples: list[Sample]) -> dict[str, str]:
    """The judge's reply to each prompt, by the prompt's last message: gold, as a verdict."""
    replies = {}
    for sample in samples:
        assert not isinstance(sample.input, str)
        label = GoldTarget.model_validate_json(str(sample.target)).label.model_dump()
        replies[sample.input[-1].text] = json.dumps({**label, "reasoning": "Echoes gold."})
    return replies


def floor_task(samples: list[Sample], replies: dict[str, str]) -> Task:
    """Inspect's own floor: the same prompts, generate, and an exact-match scorer."""
    floor = [
        Sample(id=s.id, input=s.input, target=replies[s.input[-1].text])
        for s in samples
        if not isinstance(s.input, str)
    ]
    return Task(dataset=MemoryDataset(floor), solver=generate(), scorer=match())


def with_logprobs(reply: str) -> ModelOutput:
    """The gold reply as a provider returns it when asked for logprobs."""
    output = mock_output(reply)
    tokens = _TOKENS.findall(reply)
    output.choices[0].logprobs = Logprobs(
        content=[
            Logprob(
                token=token,
                logprob=-0.1,
                bytes=list(token.encode()),
                top_logprobs=[
                    TopLogprob(token=alt, logprob=-0.1 - i, bytes=list(alt.encode()))
                    for i, alt in enumerate([token, " true", " false", "true", "false"])
                ][:TOP_ALTERNATIVES],
            )
            for token in tokens
        ]
    )
    return output


def gold_judge(replies: dict[str, str], logprobs: bool = False) -> Model:
    """A mockllm judge that gives each prompt its gold verdict; with `logprobs`, the verdict's
    token logprobs too where the request asks for them (as a provider does)."""

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        reply = replies[messages[-1].text]
        return with_logprobs(reply) if logprobs and config.logprobs else mock_output(reply)

    return get_model("mockllm/model", custom_outputs=respond)


def timed(
    make_task: Callable[[], Task],
    log_dir: Path,
    model: Model,
    limit: int | None = None,
    score_display: bool = True,
) -> tuple[float, float]:
    """The run's wall time and this process's CPU time over it (all threads): a neighbour
    on a shared machine lengthens the first much more than the second."""
    # The garbage of the run before is not this run's cost.
    gc.collect()
    start, cpu_start = time.perf_counter(), time.process_time()
    (log,) = eval(
        make_task(),
        model=model,
        log_dir=str(log_dir),
        display="none",
        limit=limit,
        max_samples=MAX_SAMPLES,
        max_connections=MAX_SAMPLES,
        score_display=score_display,
    )
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    assert log.status == "success", log.error
    return elapsed, cpu


FLOOR = "floor: Task(generate(), match())"
TASK = "judge_groundedness"
_COUNTED = {"floor": FLOOR, "task": TASK}
# valgrind's summary line: "==123== I   refs:      46,528,233,439".
_I_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def write_case_set(cases_file: Path, cases: int, cases_from: str) -> None:
    if cases_from == "shipped":
        write_case_file(cases_file, copies(load_cases(DEFAULT_CASES), cases))
    else:
        write_cases(cases_file, cases)


Runs = dict[str, tuple[Callable[[], Task], bool]]
"""Each run by name: how to make its task, and whether its judge gives logprobs."""


def runs_table(
    cases_file: Path, suite: str, samples: list[Sample], replies: dict[str, str]
) -> Runs:
    def task(graded: str = "auto") -> Callable[[], Task]:
        return lambda: judge_groundedness(
            prompt_version="v3", dataset=str(cases_file), suite=suite, graded=graded
        )

    return {
        FLOOR: (lambda: floor_task(samples, replies), False),
        TASK: (task(), False),
        "graded=off, logprob judge": (task("off"), True),
        "graded=logprobs, logprob judge": (task("logprobs"), True),
    }


@contextmanager
def prepared(args: argparse.Namespace) -> Iterator[tuple[Path, Runs, dict[str, str]]]:
    """A working folder holding the case set, each run, and the judge's replies."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        cases_file = work / "cases.jsonl"
        write_case_set(cases_file, args.cases, args.cases_from)
        samples = rendered(cases_file, args.suite)
        replies = gold_replies(samples)
        yield work, runs_table(cases_file, args.suite, samples, replies), replies


def counted_run(args: argparse.Namespace) -> None:
    """One side of `--instructions`, in the process valgrind counts: the warm-up, and with
    `--measure` the whole run after it."""
    with prepared(args) as (work, runs, replies):
        # As in the timed rounds, where the warm-up has made the task before any floor round:
        # making it installs the task's hooks, which then serve both runs.
        runs[TASK][0]()
        make, logprobs = runs[_COUNTED[args.counted]]
        judge = gold_judge(replies, logprobs)
        timed(make, work / "warm", judge, limit=WARM_CASES, score_display=False)
        if args.measure:
            timed(make, work / "logs", judge, score_display=False)


def count_instructions(args: argparse.Namespace) -> None:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        sys.exit("--instructions needs valgrind on the PATH (apt-get install valgrind)")
    passed = ["--cases", str(args.cases), "--cases-from", args.cases_from, "--suite", args.suite]
    # The same string hashes, so the same dictionary and set orders, in every process.
    env = {**os.environ, "PYTHONHASHSEED": "0"}

    def start(side: str, measure: bool) -> subprocess.Popen[str]:
        command = [valgrind, "--tool=cachegrind", "--cache-sim=no"]
        command += ["--cachegrind-out-file=/dev/null", sys.executable, __file__]
        command += ["--counted", side, *passed, *(["--measure"] if measure else [])]
        return subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
        )

    def count(process: subprocess.Popen[str]) -> int:
        _, stderr = process.communicate()
        found = _I_REFS.findall(stderr)
        if process.returncode != 0 or not found:
            sys.exit(f"a counted run failed (exit {process.returncode}):\n{stderr[-2000:]}")
        return int(found[-1].replace(",", ""))

    counts: dict[tuple[str, bool], int] = {}
    # One process a core: the warm-ups together, then the whole runs together.
    for measure in (False, True):
        started = {side: start(side, measure) for side in _COUNTED}
        try:
            counts.update({(side, measure): count(p) for side, p in started.items()})
        finally:
            # One side failed: the other would run on for minutes with nobody to read it.
            for process in started.values():
                if process.poll() is None:
                    process.kill()
    spent = {side: counts[side, True] - counts[side, False] for side in _COUNTED}
    print(f"\n{args.cases} {args.cases_from} cases, suite {args.suite}, instructions (cachegrind)")
    for side, name in _COUNTED.items():
        print(f"{name:34} {spent[side] / 1e9:7.2f} G  {spent[side] / args.cases / 1e6:6.2f} M/case")
    print(f"{'ratio':34} {spent['task'] / spent['floor']:7.3f}x (target at most 1.1x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--suite", choices=SUITES, default="gold")
    parser.add_argument("--cases-from", choices=["synthetic", "shipped"], default="synthetic")
    parser.add_argument("--instructions", action="store_true", help="count, under valgrind")
    # The processes --instructions starts.
    parser.add_argument("--counted", choices=list(_COUNTED), help=argparse.SUPPRESS)
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    add_record_option(parser)
    args = parser.parse_args()
    if args.counted:
        counted_run(args)
        return
    if args.instructions:
        count_instructions(args)
        return
    with prepared(args) as (work, runs, replies):
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        cpu_seconds: dict[str, list[float]] = {name: [] for name in runs}
        # A process's first eval pays one-off costs (at its first sample Inspect imports the
        # Anthropic and OpenAI SDKs: docs/performance.md#the-tasks-own-cost-per-sample) that
        # would count against whichever run comes first: each run once on a few cases first,
        # untimed.
        for make, logprobs in runs.values():
            timed(make, work / "warm", gold_judge(replies, logprobs), limit=WARM_CASES)
        for round_ in range(args.rounds):
            # Every other round backwards: no run always follows the same one.
            order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for name in order:
                make, logprobs = runs[name]
                judge = gold_judge(replies, logprobs)
                wall, cpu = timed(make, work / "logs", judge)
                seconds[name].append(wall)
                cpu_seconds[name].append(cpu)
                print(f"round {round_ + 1}: {name}: {wall:.1f} s (CPU {cpu:.1f} s)")
    print(
        f"\n{args.cases} {args.cases_from} cases, suite {args.suite}, "
        f"best of {args.rounds} rounds each"
    )
    for name, times in seconds.items():
        print(f"{name:34} {min(times):6.1f} s  {1000 * min(times) / args.cases:5.1f} ms/case")
    for label, (over, under), target in (
        ("ratio", (TASK, FLOOR), 1.1),
        (
            "graded=logprobs / graded=off",
            ("graded=logprobs, logprob judge", "graded=off, logprob judge"),
            1.05,
        ),
    ):
        rounds = [a / b for a, b in zip(seconds[over], seconds[under], strict=True)]
        cpu_rounds = [a / b for a, b in zip(cpu_seconds[over], cpu_seconds[under], strict=True)]
        print(
            f"{label:34} {min(seconds[over]) / min(seconds[under]):6.2f}x best of each, "
            f"{statistics.median(rounds):.2f}x median of the rounds' ratios "
            f"(target at most {target}x); CPU time {statistics.median(cpu_rounds):.2f}x"
        )


if __name__ == "__main__":
    with recording("overhead"):
        main()
