"""`-T dataset=contested`: the contested set's settled cases, apart from the gold set, and one
line while it has none; every other value is a path, as before."""

import json
import shutil
from pathlib import Path

import pytest

from farejudge.core.errors import InputError
from farejudge.evals.dataset import CONTESTED, DEFAULT_CASES, NAMED_DATASETS, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from tests.support.paths import FIXTURES

FIXTURE_IDS = sorted(
    json.loads(line)["id"] for line in (FIXTURES / "cases.jsonl").read_text().splitlines()
)


@pytest.fixture
def contested_at(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The contested set's cases folder moved under tmp_path (not created), its message kept."""
    shipped, missing = NAMED_DATASETS["contested"]
    assert shipped == CONTESTED / "cases"
    monkeypatch.setitem(NAMED_DATASETS, "contested", (tmp_path / "cases", missing))
    return tmp_path / "cases"


def test_contested_is_one_line_until_its_labels_are_settled(contested_at: Path) -> None:
    with pytest.raises(InputError) as raised:
        judge_groundedness(dataset="contested")
    assert raised.value.problems == [
        "-T dataset=contested: the contested set has no settled labels yet: label "
        "datasets/contested/drafts.jsonl with judge-label, then judge-agreement and "
        "judge-promote (--into datasets/contested/cases)"
    ]


def test_contested_runs_its_promoted_cases_alone(contested_at: Path) -> None:
    # As judge-promote files them: one file per kind.
    contested_at.mkdir()
    shutil.copy(FIXTURES / "cases.jsonl", contested_at / "rounding.jsonl")
    task = judge_groundedness(dataset="contested")
    assert sorted(str(sample.id) for sample in task.dataset) == FIXTURE_IDS
    assert (task.dataset.name, task.dataset.location) == ("contested", str(contested_at))


def test_the_default_is_the_gold_set_unchanged() -> None:
    task = judge_groundedness()
    gold = load_cases(DEFAULT_CASES)
    assert sorted(str(sample.id) for sample in task.dataset) == sorted(case.id for case in gold)
    assert len(gold) == 144
    assert (task.dataset.name, task.dataset.location) == ("cases", str(DEFAULT_CASES))


def test_a_folder_named_contested_is_reached_as_a_path(
    contested_at: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    mine = tmp_path / "work" / "contested"
    mine.mkdir(parents=True)
    shutil.copy(FIXTURES / "cases.jsonl", mine / "cases.jsonl")
    monkeypatch.chdir(mine.parent)
    task = judge_groundedness(dataset="./contested")
    assert sorted(str(sample.id) for sample in task.dataset) == FIXTURE_IDS
    with pytest.raises(InputError):
        judge_groundedness(dataset="contested")
