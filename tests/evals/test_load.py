"""No sample lost or duplicated under concurrency (CI size; benchmarks/load_run.py runs 5,000)."""

from pathlib import Path

import pytest

from farejudge.testing.concurrency_run import run_load


@pytest.mark.slow
def test_every_case_is_logged_and_scored_once(tmp_path: Path) -> None:
    report = run_load(300, tmp_path, concurrency=300)
    assert report.nothing_lost, report
    assert report.verdict_accuracy == 1.0
    assert report.judge_failure_rate == 0.0
