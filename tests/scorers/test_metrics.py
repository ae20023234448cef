"""CheckList's failure rate over hand-made sample scores, one epoch and several."""

import math

from inspect_ai.scorer import SampleScore, Score

from farejudge.scorers.metrics import consistency_failure_rate


def scored(case_id: str, agree: int, parent: str | None = None) -> SampleScore:
    metadata = {"derived_from": parent} if parent else {}
    return SampleScore(
        score=Score(value={"agree": agree}), sample_id=case_id, sample_metadata=metadata
    )


def rate(scores: list[SampleScore]) -> float:
    return float(consistency_failure_rate()(scores))  # type: ignore[arg-type]


def test_only_derived_cases_of_right_parents_count() -> None:
    scores = [
        scored("a", 1),
        scored("a~order", 0, "a"),
        scored("a~tags", 1, "a"),
        scored("b", 0),  # wrong parent: its derived case says nothing about consistency
        scored("b~order", 0, "b"),
    ]
    assert rate(scores) == 0.5


def test_epochs_a_parent_is_right_only_when_every_epoch_is() -> None:
    scores = [
        scored("a", 1),
        scored("a", 1),
        scored("a~order", 1, "a"),
        scored("a~order", 0, "a"),
        scored("b", 1),
        scored("b", 0),
        scored("b~order", 0, "b"),
        scored("b~order", 0, "b"),
    ]
    assert rate(scores) == 0.5


def test_no_derived_case_is_undefined() -> None:
    assert math.isnan(rate([scored("a", 1)]))
