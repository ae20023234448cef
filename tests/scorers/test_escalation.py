"""Selective judging's rule: a verdict's confidence, what is decided alone, and a sample held to
a threshold, in the words its explanation gives."""

import math
import re
from decimal import Decimal
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Score

from farejudge.scorers.escalation import confidence_of, decides, escalate_sample, held_score
from farejudge.scorers.viewer_columns import SHOWN_DECIMALS


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


# --- a confidence held to a threshold: the figures shown never contradict the mark -------------

_READ = re.compile(r"confidence in its verdict, ([0-9.]+), is .* the threshold ([0-9.e-]+)\.$")


def _held(verdict: int, p_ungrounded: float, threshold: float) -> dict[str, Any]:
    scored = Score(
        value={
            "judge_ungrounded": float(verdict),
            "judge_failure": 0.0,
            "p_ungrounded": p_ungrounded,
            "p_shown": round(p_ungrounded, SHOWN_DECIMALS),
        },
        explanation="The judge says so.",
    )
    held = held_score(scored, "logprobs", threshold, SHOWN_DECIMALS)
    value = cast(dict[str, Any], held.value)
    assert held.explanation is not None
    return {**value, "line": held.explanation.splitlines()[-1]}


def test_a_confidence_just_below_the_threshold_is_not_shown_at_it() -> None:
    # Issue 62: 0.6496 was recorded as 0.65, escalated, "0.650 is below the threshold 0.65".
    below = _held(1, 0.6496, 0.65)
    assert below["escalation"] == "escalated"
    assert below["confidence"] == 0.6496
    assert below["confidence_shown"] == 0.6496
    assert below["line"] == (
        "Escalated to a person: the judge's confidence in its verdict, 0.6496, is below the "
        "threshold 0.65."
    )
    assert below["p_shown"] == 0.6496
    above = _held(1, 0.6504, 0.65)
    assert above["escalation"] == "decided"
    assert above["confidence"] == 0.6504 and above["confidence_shown"] == 0.65
    assert "verdict, 0.650, is at or above the threshold 0.65." in above["line"]
    assert above["p_shown"] == 0.65


@settings(max_examples=400, derandomize=True)
@given(
    threshold=st.floats(0.5, 0.99, allow_nan=False).map(lambda t: round(t, 4)),
    offset=st.one_of(
        st.just(0.0),
        st.floats(-0.005, 0.005, allow_nan=False),
        st.integers(-3, 3).map(lambda n: n * 1e-12),
    ),
    verdict=st.sampled_from([0, 1]),
)
def test_no_figure_shown_contradicts_the_mark(
    threshold: float, offset: float, verdict: int
) -> None:
    confidence = min(1.0, max(0.0, threshold + offset))
    p = confidence if verdict == 1 else 1 - confidence
    held = _held(verdict, p, threshold)
    decided = held["escalation"] == "decided"
    exact = p if verdict == 1 else 1 - p
    assert decided == (exact >= threshold)
    assert held["confidence"] == exact
    limit = Decimal(repr(threshold))
    # The column, the explanation's figure and threshold, and P(ungrounded) as shown.
    assert (Decimal(repr(held["confidence_shown"])) >= limit) == decided
    found = _READ.search(held["line"])
    assert found is not None, held["line"]
    assert Decimal(found.group(2)) == limit
    assert (Decimal(found.group(1)) >= limit) == decided
    shown_p = Decimal(repr(held["p_shown"]))
    assert ((shown_p if verdict == 1 else 1 - shown_p) >= limit) == decided
