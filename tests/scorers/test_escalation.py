"""Selective judging's rule: a verdict's confidence, what is decided alone, and a sample held to
a threshold, in the words its explanation gives."""

import math

import pytest

from farejudge.scorers.escalation import confidence_of, decides, escalate_sample


def test_confidence_is_the_weight_on_the_verdict_given() -> None:
    # logprobs leaning each way; three epochs (2 of 3 said ungrounded); a tie of four epochs;
    # a verdict the logprobs lean against; no graded score; a judge failure.
    verdict = [0, 1, 1, 1, 0, 1, math.nan]
    p = [0.1, 0.93, 2 / 3, 0.5, 0.8, math.nan, 0.7]
    found = confidence_of(verdict, p)
    assert found[:5] == pytest.approx([0.9, 0.93, 2 / 3, 0.5, 0.2])
    assert math.isnan(found[5]) and math.isnan(found[6])


def test_only_a_verdict_at_or_above_the_threshold_is_decided() -> None:
    verdict = [1, 0, math.nan, 1]
    confidence = [0.9, 0.89, 0.99, math.nan]
    assert decides(verdict, confidence, 0.9).tolist() == [True, False, False, False]
    assert decides(verdict, confidence, None).tolist() == [False] * 4


@pytest.mark.parametrize(
    ("verdict", "p", "escalation", "line"),
    [
        (
            1,
            0.93,
            "decided",
            "Decided alone: the judge's confidence in its verdict, 0.930, is at or above the "
            "threshold 0.9.",
        ),
        (
            0,
            0.3,
            "escalated",
            "Escalated to a person: the judge's confidence in its verdict, 0.700, is below the "
            "threshold 0.9.",
        ),
        (
            math.nan,
            math.nan,
            "escalated",
            "Escalated to a person: a judge failure, no verdict to hold to the threshold 0.9.",
        ),
        (
            0,
            math.nan,
            "escalated",
            "Escalated to a person: no confidence to hold to the threshold 0.9: the provider "
            "returned no logprobs.",
        ),
    ],
)
def test_a_sample_held_to_a_threshold(verdict: float, p: float, escalation: str, line: str) -> None:
    found = escalate_sample(verdict, p, 0.9, "the provider returned no logprobs")
    assert (found.escalation, found.line) == (escalation, line)


def test_the_threshold_itself_is_decided() -> None:
    assert escalate_sample(1, 0.9, 0.9).escalation == "decided"
