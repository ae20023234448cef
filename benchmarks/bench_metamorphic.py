"""How long deriving the metamorphic suite from the shipped gold set takes (target: under 2 s).

    python benchmarks/bench_metamorphic.py             # best of 5 derivations, seed 0
    python benchmarks/bench_metamorphic.py --rounds 10

What the suite holds (at least 600 cases, each relation's count or why it fell short) is
tested in tests/evals/metamorphic/test_metamorphic.py; its time is measured here, because a
shared machine makes a timed test flake. Prints figures only.
"""

import argparse
import time

from record import add_record_option, recording

from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.metamorphic.derive import derive_suite

TARGET_SECONDS = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    add_record_option(parser)
    args = parser.parse_args()
    gold = load_cases(DEFAULT_CASES)
    times = []
    for _ in range(args.rounds):
        started = time.perf_counter()
        suite = derive_suite(gold, seed=args.seed)
        times.append(time.perf_counter() - started)
    print(f"{len(suite.cases)} cases derived from {len(gold)}, seed {args.seed}")
    print(f"rounds: {', '.join(f'{t:.2f}' for t in times)} s")
    print(f"best of {args.rounds}: {min(times):.2f} s (target under {TARGET_SECONDS:.0f} s)")


if __name__ == "__main__":
    with recording("metamorphic"):
        main()
