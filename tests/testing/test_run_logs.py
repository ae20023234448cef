"""Logs a run writes, grown to any size: Inspect reads them, judge-compare compares them, and
the comparison reads them alike in worker processes and in one."""

from pathlib import Path

import pandas as pd
import pytest
from inspect_ai.log import EvalLog, read_eval_log

from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.logs.read import samples_or_why
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.fingerprint import case_hash, case_set_hash
from farejudge.shared.logs import workers
from farejudge.testing.run_logs import base_runs, copies, grow_log

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    return base_runs(tmp_path_factory.mktemp("base"), 1, versions=("v1", "v2"))


@pytest.fixture(scope="module")
def grown(base: list[EvalLog], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("grown")
    for log in base:
        grow_log(log.location, folder / Path(log.location).name, 300)
    return folder


def test_copies_have_their_own_ids() -> None:
    shipped = load_cases(DEFAULT_CASES)
    found = copies(shipped, 2 * len(shipped) + 1)
    assert len({case.id for case in found}) == len(found)
    assert found[len(shipped)].model_dump(exclude={"id"}) == shipped[0].model_dump(exclude={"id"})


def test_a_base_run_logs_messages_and_events(base: list[EvalLog]) -> None:
    log = read_eval_log(base[0].location)
    sample = (log.samples or [])[0]
    assert log.status == "success" and len(log.samples or []) == 144
    assert sample.events and len(sample.messages) >= 3


def test_inspect_reads_a_grown_log_with_new_ids_and_hashes(grown: Path) -> None:
    shipped = {case.id: case for case in load_cases(DEFAULT_CASES)}
    log = read_eval_log(str(next(grown.glob("*.eval"))))
    samples = log.samples or []
    ids = [str(s.id) for s in samples]
    assert len(samples) == 300 and len(set(ids)) == 300
    assert sorted(map(str, log.eval.dataset.sample_ids or [])) == sorted(ids)
    assert log.results is not None and log.results.completed_samples == 300
    hashes = (log.eval.metadata or {})["case_sha256"]
    for sample_id in ("age-001-0", "age-001-2"):
        copy = shipped["age-001"].model_copy(update={"id": sample_id})
        assert hashes[sample_id] == case_hash(copy)
    assert (log.eval.metadata or {})["case_set_sha256"] == case_set_hash(hashes)
    # Each copy keeps its transcript, under its own id.
    assert all(s.events and s.id == i for s, i in zip(samples, ids, strict=True))


def test_judge_compare_reads_a_grown_run(grown: Path) -> None:
    runs = load_runs([str(grown)])
    assert len(runs.samples) == 2 * 300
    assert all(len(c) == 300 for c in runs.case_sets.values())
    # A copy is judged as its original.
    by_case = runs.samples.set_index(["version", "case"])["agree"]
    assert by_case[("v1", "age-001-0")] == by_case[("v1", "age-001-2")]


def test_logs_read_in_workers_read_as_in_one_process(
    grown: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    forked = load_runs([str(grown)]).samples
    monkeypatch.setattr(workers, "_cores", lambda: 1)
    pd.testing.assert_frame_equal(forked, load_runs([str(grown)]).samples)


def test_a_worker_that_cannot_read_a_log_says_why(grown: Path, tmp_path: Path) -> None:
    for path in grown.glob("*.eval"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    broken = sorted(tmp_path.glob("*.eval"))[0]
    data = bytearray(broken.read_bytes())
    # Inside summaries.json's compressed bytes: the header still reads, the samples do not.
    start = data.find(b"summaries.json") + len("summaries.json")
    data[start + 200 : start + 400] = bytes(200)
    broken.write_bytes(bytes(data))
    found = samples_or_why(str(broken), "x")
    assert not isinstance(found, pd.DataFrame)
    assert found.reason in {"damaged", "truncated"}
