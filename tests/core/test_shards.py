"""Shards of a case set: every case in exactly one shard, families together, same everywhere."""

import subprocess
import sys

import pytest
from inspect_ai.dataset import Sample

from farejudge.core.errors import InputError
from farejudge.core.shards import Shard, check_shard, shard_samples
from farejudge.evals.judge_groundedness import judge_groundedness


def _ids(task_shard: str | None, suite: str = "gold") -> list[str]:
    task = judge_groundedness(shard=task_shard, suite=suite)
    return [str(s.id) for s in task.dataset]


@pytest.mark.parametrize("suite", ["gold", "metamorphic"])
def test_the_shards_of_a_case_set_hold_each_case_exactly_once(suite: str) -> None:
    whole = _ids(None, suite)
    parts = [_ids(f"{i}/4", suite) for i in range(4)]
    assert sorted(case for part in parts for case in part) == sorted(whole)
    assert all(parts), "with 144 cases, no shard of four is empty"


def test_a_derived_case_is_in_its_gold_case_s_shard() -> None:
    for i in range(3):
        ids = set(_ids(f"{i}/3", "metamorphic"))
        assert {case.split("~")[0] for case in ids} <= ids


def test_a_shard_records_the_whole_case_set_and_which_shard_it_is() -> None:
    whole, part = judge_groundedness(), judge_groundedness(shard="1/4")
    assert part.metadata and whole.metadata
    assert part.metadata["case_set_sha256"] == whole.metadata["case_set_sha256"]
    assert part.metadata["shard"] == "1/4"
    assert whole.metadata["shard"] is None


@pytest.mark.subprocess
def test_the_split_does_not_depend_on_the_process() -> None:
    # Python's own str hash is salted per process: the split must not use it.
    code = (
        "from farejudge.core.shards import Shard;from inspect_ai.dataset import Sample;"
        "print([Shard(0, 3).holds(Sample(id=f'c{i}', input='x')) for i in range(40)])"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    }
    assert len(runs) == 1
    here = [Shard(0, 3).holds(Sample(id=f"c{i}", input="x")) for i in range(40)]
    assert runs == {f"{here}\n"}


def test_one_shard_of_one_is_the_whole_set() -> None:
    samples = [Sample(id=f"c{i}", input="x") for i in range(10)]
    assert shard_samples(samples, check_shard("0/1")) == samples


@pytest.mark.parametrize("value", ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""])
def test_a_malformed_shard_is_one_line_naming_the_option(value: str) -> None:
    with pytest.raises(InputError) as raised:
        check_shard(value)
    assert str(raised.value).count("\n") == 0
    assert f"-T shard={value!r}" in str(raised.value)
