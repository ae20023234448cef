"""Time judge-compare's reading of a log whose cases carry many annotators' labels.

Inspect's sample summaries drop a metadata value over 1 KB (about nine annotators); the
reader (`comparison/logs/read.py`) then reads those cases' annotators from one whole sample
each. For each annotator count, this runs the gold task on a scripted judge over --cases
copies of the contested set's cases, each with that many annotators, then reads the log as
judge-compare does, three times, and prints the best time. Prints figures only:

    python benchmarks/bench_annotations.py                  # 500 cases, 3 and 12 annotators
    python benchmarks/bench_annotations.py --cases 2000 --annotators 3,12,30
"""

import argparse
import tempfile
import time
from pathlib import Path

from inspect_ai import eval
from record import add_record_option, recording

from farejudge.comparison.logs.read import read_samples
from farejudge.core.case_schema import Annotation, Case
from farejudge.core.sample_case import ANNOTATIONS_KEY
from farejudge.evals.dataset import CONTESTED, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.run_logs import copies, write_case_file
from farejudge.testing.scripted_judge import echo_gold, scripted_judge


def crowded(case: Case, annotators: int) -> Case:
    """`case` with `annotators` labels: its own, then copies of its first under new names."""
    first = case.annotations[0]
    more = [
        Annotation.model_validate(first.model_dump() | {"annotator": f"extra-{i:02d}"})
        for i in range(max(annotators - len(case.annotations), 0))
    ]
    return case.model_copy(update={"annotations": [*case.annotations[:annotators], *more]})


def log_of(folder: Path, cases: list[Case], originals: list[Case]) -> str:
    write_case_file(folder / "cases.jsonl", cases)
    # Scripted on the originals: a copy shows the judge the same prompt as its original.
    (run,) = eval(
        judge_groundedness(dataset=str(folder / "cases.jsonl")),
        model=scripted_judge(originals, echo_gold),
        log_dir=str(folder / "logs"),
        display="none",
    )
    assert run.status == "success", run.error
    return run.location


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--annotators", default="3,12", help="comma-separated counts")
    add_record_option(parser)
    args = parser.parse_args()
    contested = load_cases(CONTESTED / "cases")
    print(f"{'annotators':>10} {'cases':>6} {'read (s)':>9} {'ms/case':>8}  annotators read")
    for annotators in [int(a) for a in args.annotators.split(",")]:
        cases = [crowded(c, annotators) for c in copies(contested, args.cases)]
        with tempfile.TemporaryDirectory() as folder:
            location = log_of(Path(folder), cases, contested)
            best = float("inf")
            for _ in range(3):
                started = time.perf_counter()
                frame = read_samples(location, "bench")
                best = min(best, time.perf_counter() - started)
        counts = sorted({len(v) for v in frame[ANNOTATIONS_KEY]})
        print(
            f"{annotators:>10} {len(cases):>6} {best:>9.2f} {1000 * best / len(cases):>8.2f}"
            f"  {counts}"
        )


if __name__ == "__main__":
    with recording("annotations"):
        main()
