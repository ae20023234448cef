"""The task's cost per sample next to Inspect's own floor, side by side in one process.

    python benchmarks/bench_overhead.py                 # 2,000 synthetic cases, 3 rounds
    python benchmarks/bench_overhead.py --cases 500 --rounds 1
    python benchmarks/bench_overhead.py --suite metamorphic --cases 500

Both runs judge the same rendered v3 prompts on the same mockllm judge, which answers
each case with its gold verdict: the floor is a bare `Task(dataset, generate(), match())`
over the prompts, the task is `judge_groundedness` (load and validate cases, render,
generate, parse, score, review). Rounds alternate the two, and the best round of each
counts, because a shared 2-core machine slows some rounds at random. Prints figures only.
"""

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from farejudge.evals.dataset import load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import SUITES, suite_samples
from farejudge.simulate.synthetic_cases import gold_reply, synthetic_judge, write_cases

# As many samples in flight as the load run uses per thousand: the figure is per-sample
# overhead, not waiting on a connection limit.
MAX_SAMPLES = 200


def floor_task(cases_file: Path, suite: str) -> Task:
    """Inspect's own floor: the same prompts, generate, and an exact-match scorer."""
    rendered, _ = suite_samples(load_cases(cases_file), suite, load_prompt_version("v3"))
    samples = [
        # A derived synthetic case keeps its parent's question, so the judge answers by that.
        Sample(id=s.id, input=s.input, target=gold_reply(str(s.id).split("~")[0]))
        for s in rendered
    ]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match())


def timed(make_task: Callable[[], Task], log_dir: Path) -> float:
    start = time.perf_counter()
    (log,) = eval(
        make_task(),
        model=synthetic_judge(),
        log_dir=str(log_dir),
        display="none",
        max_samples=MAX_SAMPLES,
        max_connections=MAX_SAMPLES,
    )
    elapsed = time.perf_counter() - start
    assert log.status == "success", log.error
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--suite", choices=SUITES, default="gold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        cases_file = Path(work) / "cases.jsonl"
        write_cases(cases_file, args.cases)
        runs: dict[str, Callable[[], Task]] = {
            "floor: Task(generate(), match())": lambda: floor_task(cases_file, args.suite),
            "judge_groundedness": lambda: judge_groundedness(
                prompt_version="v3", dataset=str(cases_file), suite=args.suite
            ),
        }
        best = {name: float("inf") for name in runs}
        for round_ in range(args.rounds):
            for name, make in runs.items():
                seconds = timed(make, Path(work) / "logs")
                best[name] = min(best[name], seconds)
                print(f"round {round_ + 1}: {name}: {seconds:.1f} s")
    floor, task = best.values()
    print(f"\n{args.cases} cases, suite {args.suite}, best of {args.rounds} rounds each")
    for name, seconds in best.items():
        print(f"{name:34} {seconds:6.1f} s  {1000 * seconds / args.cases:5.1f} ms/case")
    print(f"{'ratio':34} {task / floor:6.2f}x (target at most 1.2x)")


if __name__ == "__main__":
    main()
