"""Logs read into the comparison's frame: .json and .eval alike, by Inspect's writer and the
fast one, and a cost only where the log records one."""

from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from farejudge.comparison.logs.frame import load_runs
from farejudge.testing.synthetic_logs import write_log, write_runs


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("synthetic")


@pytest.fixture(scope="module")
def eval_logs(synthetic: Path) -> Path:
    write_runs(synthetic / "eval", 40)
    return synthetic / "eval"


def _copy(logs: Path, out: Path, suffix: str, cost: float | None = None) -> Path:
    """The logs written again by Inspect's own writer, as .eval or .json."""
    out.mkdir()
    for path in logs.glob("*.eval"):
        log = read_eval_log(str(path))
        if cost is not None:
            for usage in log.stats.model_usage.values():
                usage.total_cost = cost
        write_eval_log(log, str(out / (path.stem + suffix)))
    return out


def _tidy(folder: Path) -> pd.DataFrame:
    samples = load_runs([str(folder)]).samples
    return samples.sort_values(["version", "case"]).reset_index(drop=True)


@pytest.mark.slow
def test_a_json_log_and_an_eval_log_read_the_same(eval_logs: Path, synthetic: Path) -> None:
    ours = _tidy(eval_logs)
    assert len(ours) == 3 * 40 and set(ours["version"]) == {"v1", "v2", "v3"}
    pd.testing.assert_frame_equal(ours, _tidy(_copy(eval_logs, synthetic / "json", ".json")))
    # And the same as Inspect's own .eval writer: the fast writer lays logs out alike.
    pd.testing.assert_frame_equal(ours, _tidy(_copy(eval_logs, synthetic / "inspect", ".eval")))


@pytest.mark.slow
def test_inspect_reads_a_fast_written_log_as_it_was(eval_logs: Path, tmp_path: Path) -> None:
    path = next(eval_logs.glob("*.eval"))
    log = read_eval_log(str(path))
    write_log(log, tmp_path / path.name)
    again = read_eval_log(str(tmp_path / path.name))
    assert again.eval == log.eval and again.results == log.results
    assert [s.model_dump() for s in again.samples or []] == [
        s.model_dump() for s in log.samples or []
    ]


@pytest.mark.slow
def test_total_cost_is_nan_unless_recorded(eval_logs: Path, synthetic: Path) -> None:
    assert load_runs([str(eval_logs)]).logs["total_cost"].isna().all()
    costed = load_runs([str(_copy(eval_logs, synthetic / "costed", ".eval", cost=0.25))])
    assert costed.logs["total_cost"].tolist() == [0.25] * 3
