"""The judge's sensitivity and specificity on a period's labels."""

import math

import pytest

from farejudge.audit.stats.agreement import judge_agreement
from farejudge.audit.stats.intervals import wilson


def test_counts_and_wilson_intervals_with_failures_in_neither() -> None:
    labels = [1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 0]
    predictions = [1, 1, 1, 0, 0, 0, 0, 1, 0, math.nan, math.nan]
    found = judge_agreement(labels, predictions)
    assert (found.positives, found.misses, found.negatives, found.false_alarms) == (4, 1, 5, 1)
    assert found.failures == 2
    assert found.sensitivity == wilson(3, 4)
    assert found.specificity == wilson(4, 5)
    assert found.sensitivity.estimate == 0.75


def test_probabilities_are_cut_at_the_operating_point() -> None:
    labels = [1, 1, 0, 0]
    predictions = [0.7, 0.5, 0.4, 0.2]
    assert judge_agreement(labels, predictions).misses == 0
    assert judge_agreement(labels, predictions, cut=0.6).misses == 1
    assert judge_agreement(labels, predictions, cut=0.3).false_alarms == 1


def test_no_ungrounded_label_leaves_sensitivity_undefined() -> None:
    found = judge_agreement([0, 0], [0, 1])
    assert math.isnan(found.sensitivity.estimate) and found.specificity.estimate == 0.5


@pytest.mark.parametrize(
    ("labels", "predictions", "message"),
    [([1, 0], [1], "2 labels but 1 predictions"), ([2, 0], [1, 0], "0 \\(grounded\\) or 1")],
)
def test_bad_input_is_named(labels: list[int], predictions: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        judge_agreement(labels, predictions)
