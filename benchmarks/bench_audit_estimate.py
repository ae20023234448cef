"""Time the audit's statistics over a large period, from arrays already in memory.

For each size, simulates a period (predictions P(ungrounded) with 2 % judge failures, twelve
categories, 1,000 uniform labels), then times, each in a fresh child process so that its
imports and peak memory are its own: the period's estimate (`estimate_period`, the binomial
intervals included), the estimate per category, the population hash over that many drafts, and
a uniform draw of the sample from them. Prints figures only:

    python benchmarks/bench_audit_estimate.py                 # 1,000,000 answers
    python benchmarks/bench_audit_estimate.py --answers 100000,1000000

Reading the judged answers from run logs is not included here (the audit command's benchmark
measures it). Wall time is the step alone, after the arrays are built; peak memory is the child
process's maximum resident set (its rusage), arrays, imports and interpreter included.
"""

import argparse
import multiprocessing
import resource
import sys
import time
from collections.abc import Callable
from multiprocessing.connection import Connection

import numpy as np

LABELS = 1_000
CATEGORIES = 12
STEPS = ("estimate", "per category", "population hash", "uniform draw")


def _period(
    answers: int,
) -> tuple[
    np.typing.NDArray[np.float64],
    np.typing.NDArray[np.int64],
    np.typing.NDArray[np.float64],
    list[str],
]:
    rng = np.random.default_rng(1)
    truth = rng.random(answers) < 0.2
    predictions = 1 / (1 + np.exp(-(np.where(truth, 1.5, -1.5) + rng.standard_normal(answers))))
    predictions[rng.random(answers) < 0.02] = np.nan
    positions = rng.choice(answers, LABELS, replace=False)
    categories = [f"category-{i}" for i in rng.integers(0, CATEGORIES, answers)]
    return predictions, positions, truth[positions].astype(float), categories


def _run(step: str, answers: int, out: Connection) -> None:
    from farejudge.audit.estimate.statistics import estimate_by_category, estimate_period
    from farejudge.audit.stats.design import draw_uniform
    from farejudge.core.population import population_hash

    predictions, positions, labels, categories = _period(answers)

    def estimate() -> object:
        # The binomial intervals are computed where the report asks for them: ask here.
        found = estimate_period(predictions, positions, labels)
        return found.labels_only.wilson(), found.labels_only.clopper_pearson()

    drafts = {f"draft-{i:07d}": f"the assistant's answer number {i}" for i in range(answers)}
    work: dict[str, Callable[[], object]] = {
        "estimate": estimate,
        "per category": lambda: estimate_by_category(predictions, positions, labels, categories),
        "population hash": lambda: population_hash(drafts),
        "uniform draw": lambda: draw_uniform(drafts, LABELS, seed=1),
    }
    start = time.perf_counter()
    work[step]()
    wall = time.perf_counter() - start
    out.send((wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", default="1000000", help="comma-separated period sizes")
    sizes = [int(x) for x in parser.parse_args(argv).answers.split(",") if x]
    context = multiprocessing.get_context("spawn")
    print(f"{'answers':>10} {'step':>16} {'wall s':>8} {'peak MB':>8}")
    for answers in sizes:
        for step in STEPS:
            receive, send = context.Pipe(duplex=False)
            child = context.Process(target=_run, args=(step, answers, send))
            child.start()
            wall, peak = receive.recv()
            child.join()
            print(f"{answers:>10,} {step:>16} {wall:>8.3f} {peak:>8.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
