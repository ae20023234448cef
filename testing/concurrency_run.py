"""A load run: many synthetic cases on a mock judge at high concurrency, then the log read back.

Shared by tests/evals/test_load.py (CI size) and benchmarks/load_run.py (5,000 cases).
"""

import resource
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import read_eval_log, read_eval_log_samples

from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.synthetic_cases import synthetic_judge, write_cases


@dataclass(frozen=True)
class LoadReport:
    cases: int
    logged: int
    missing: list[str]
    duplicated: list[str]
    unexpected: list[str]
    unscored: list[str]
    completed_samples: int
    verdict_accuracy: float
    judge_failure_rate: float
    wall_seconds: float
    peak_rss_mb: float

    @property
    def nothing_lost(self) -> bool:
        return self.logged == self.cases == self.completed_samples and not (
            self.missing or self.duplicated or self.unexpected or self.unscored
        )


def peak_rss_mb() -> float:
    # ru_maxrss is in kilobytes on Linux.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_load(count: int, work_dir: Path, concurrency: int) -> LoadReport:
    cases = work_dir / "cases.jsonl"
    ids = write_cases(cases, count)
    start = time.perf_counter()
    (log,) = eval(
        judge_groundedness(dataset=str(cases)),
        model=synthetic_judge(),
        log_dir=str(work_dir / "logs"),
        display="none",
        max_connections=concurrency,
        max_samples=concurrency,
    )
    wall = time.perf_counter() - start
    assert log.status == "success", log.error

    # Read back from the file, one sample at a time, as a later reader would see it.
    header = read_eval_log(log.location, header_only=True)
    assert header.results is not None
    scores = next(s for s in header.results.scores if s.name == "verdict_agreement")
    seen: Counter[str] = Counter()
    unscored = []
    for sample in read_eval_log_samples(log.location, all_samples_required=False):
        seen[str(sample.id)] += 1
        verdict = (sample.scores or {}).get("verdict_agreement")
        if verdict is None or not isinstance(verdict.value, dict):
            unscored.append(str(sample.id))
    return LoadReport(
        cases=count,
        logged=sum(seen.values()),
        missing=sorted(set(ids) - set(seen)),
        duplicated=sorted(i for i, n in seen.items() if n > 1),
        unexpected=sorted(set(seen) - set(ids)),
        unscored=unscored,
        completed_samples=header.results.completed_samples,
        verdict_accuracy=scores.metrics["verdict_accuracy"].value,
        judge_failure_rate=scores.metrics["judge_failure_rate"].value,
        wall_seconds=wall,
        peak_rss_mb=peak_rss_mb(),
    )
