"""A case keeps every annotator's label beside gold: checked, written only where present, and
carried by the `datasets` columns."""

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from farejudge.core.case_schema import Case, case_features, case_problems
from farejudge.evals.dataset import load_cases
from tests.support.paths import REPO_ROOT


def _annotated(case: Case, **changes: Any) -> Case:
    claim = case.label.unsupported_claims[0]
    start = case.answer.index(claim)
    annotation = {
        "annotator": "ana",
        "kind": "expert",
        "role": "annotator",
        "grounded": False,
        "spans": [{"start": start, "end": start + len(claim), "text": claim}],
        "response_set": ["ungrounded", "grounded"],
        "reason": "the claim is not in P1",
        "rules": [],
        "labelled_at": "2026-12-07T16:00:00.250000Z",
        **changes,
    }
    text = case.model_dump_json()
    return Case.model_validate_json(text[:-1] + f',"annotations":[{json.dumps(annotation)}]}}')


def _ungrounded() -> Case:
    return next(c for c in load_cases() if not c.label.grounded)


def test_shipped_cases_are_written_as_before() -> None:
    for path in sorted((REPO_ROOT / "datasets" / "cases").glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for line, case in zip(lines, load_cases(path), strict=True):
            assert case.annotations == []
            # No new key, the old ones in their order and with their values.
            assert list(json.loads(case.model_dump_json()).items()) == list(
                json.loads(line).items()
            )


def test_annotations_round_trip_as_json() -> None:
    case = _annotated(_ungrounded())
    again = Case.model_validate_json(case.model_dump_json())
    assert again == case and again.annotations[0].response_set == ["ungrounded", "grounded"]
    assert again.annotations[0].labelled_at == datetime.datetime(
        2026, 12, 7, 16, 0, 0, 250000, tzinfo=datetime.UTC
    )
    assert case_problems(case) == []


def test_a_response_set_must_hold_the_own_verdict() -> None:
    with pytest.raises(ValidationError) as caught:
        _annotated(_ungrounded(), response_set=["grounded"])
    (error,) = caught.value.errors()
    assert error["loc"] == ("annotations", 0, "response_set")
    assert "leaves out the label's own verdict 'ungrounded'" in error["msg"]


def test_an_annotation_span_must_select_its_text() -> None:
    case = _ungrounded()
    claim = case.label.unsupported_claims[0]
    start = case.answer.index(claim) + 1
    moved = _annotated(case, spans=[{"start": start, "end": start + len(claim), "text": claim}])
    selected = case.answer[start : start + len(claim)]
    assert case_problems(moved) == [
        (
            "annotations.0.spans.0",
            f"answer[{start}:{start + len(claim)}] is {selected!r}, not {claim!r}",
        )
    ]


def test_the_datasets_columns_carry_the_annotations(tmp_path: Path) -> None:
    import datasets

    plain, annotated = load_cases()[0], _annotated(_ungrounded())
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "".join(c.model_dump_json() + "\n" for c in (plain, annotated)), encoding="utf-8"
    )
    ds = datasets.load_dataset(
        "json", data_files=str(path), features=case_features(), split="train"
    )
    first, second = ds[0], ds[1]
    assert first["annotations"] is None  # a case with one label
    (row,) = second["annotations"]
    assert row == {**annotated.annotations[0].model_dump(), "labelled_at": row["labelled_at"]}
    assert row["labelled_at"] == annotated.annotations[0].labelled_at
