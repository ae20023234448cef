"""The contested set's shipped labels are evidence, recomputed rather than trusted: the
agreement record is what judge-agreement says of the labels files today, and every promoted
case holds exactly the labels it was settled from."""

import json
from pathlib import Path

import pytest

from farejudge.evals.dataset import load_cases, named_dataset
from farejudge.labelling.agreement_report import main as judge_agreement
from farejudge.labelling.label_file import read_labels
from tests.support.paths import REPO_ROOT

CONTESTED = REPO_ROOT / "datasets" / "contested"
ANNOTATORS = ("agent-a", "agent-b", "agent-c")
ADJUDICATOR = "agent-d"


def test_the_agreement_record_is_what_the_labels_files_give(tmp_path: Path) -> None:
    files = [str(CONTESTED / "labels" / f"{name}.jsonl") for name in ANNOTATORS]
    drafts = str(CONTESTED / "drafts.jsonl")
    # 1: every pair is held to --min-kappa 0.8, and two pairs are below it.
    assert judge_agreement([*files, "--drafts", drafts, "--out", str(tmp_path)]) == 1
    again = json.loads((tmp_path / "agreement.json").read_text(encoding="utf-8"))
    shipped = json.loads(
        (CONTESTED / "agreement" / "contested-2026-12.json").read_text(encoding="utf-8")
    )
    assert again == shipped


def test_every_promoted_case_keeps_the_labels_it_was_settled_from() -> None:
    labels = {
        name: {
            label.case_id: label for label in read_labels(CONTESTED / "labels" / f"{name}.jsonl")
        }
        for name in (*ANNOTATORS, ADJUDICATOR)
    }
    cases = load_cases(named_dataset("contested"))
    assert len(cases) == 55
    adjudicated = 0
    for case in cases:
        assert case.annotations is not None
        by_name = {a.annotator: a for a in case.annotations}
        assert set(by_name) - {ADJUDICATOR} == set(ANNOTATORS), case.id
        for name, annotation in by_name.items():
            label = labels[name][case.id]
            assert annotation.grounded == label.grounded, (case.id, name)
            assert annotation.kind == label.kind == "model", (case.id, name)
        if ADJUDICATOR in by_name:
            adjudicated += 1
            assert case.label.grounded == by_name[ADJUDICATOR].grounded, case.id
        else:
            assert {a.grounded for a in case.annotations} == {case.label.grounded}, case.id
    assert adjudicated == len(labels[ADJUDICATOR]) == 11


@pytest.mark.parametrize("name", [*ANNOTATORS, ADJUDICATOR])
def test_each_annotator_is_one_model_annotator(name: str) -> None:
    labels = read_labels(CONTESTED / "labels" / f"{name}.jsonl")
    assert {(label.annotator, label.kind) for label in labels} == {(name, "model")}
    assert len(labels) == (11 if name == ADJUDICATOR else 55)
