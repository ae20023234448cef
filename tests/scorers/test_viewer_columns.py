"""The review columns of the verdict score and the viewer's sample list: category, gold,
verdict, outcome."""

import math
import re
from decimal import Decimal
from pathlib import Path
from typing import Any, cast

from hypothesis import given, settings
from hypothesis import strategies as st
from inspect_ai.scorer import Score
from inspect_ai.viewer import TaskSamplesView

from farejudge.evals.dataset import load_cases
from farejudge.scorers.viewer_columns import (
    OUTCOME_ROLES,
    SHOWN_DECIMALS,
    VERDICT_SCORER,
    held_score,
    review_fields,
)
from tests.support.scripted_cases import FIXTURE_CASES, run_version


def test_review_columns_say_the_outcome_in_words(tmp_path: Path) -> None:
    script = {"t-conv": "wrong", "t-price": "wrong", "t-silence": "failure"}
    log = run_version("v3", script, FIXTURE_CASES, tmp_path, epochs=2)
    assert log.samples is not None and len(log.samples) == 6
    seen = {}
    for sample in log.samples:
        scores = sample.scores or {}
        verdict = scores[VERDICT_SCORER]
        assert isinstance(verdict.value, dict)
        seen[sample.id] = {k: v for k, v in verdict.value.items() if isinstance(v, str)}
        assert verdict.value["verdict"] == verdict.answer
    questions = {c.id: c.question for c in load_cases(FIXTURE_CASES)}
    for case_id, columns in seen.items():
        assert columns.pop("question") == questions[str(case_id)]
    assert seen == {
        "t-conv": {
            "graded_source": "epochs",
            "category": "conv",
            "gold": "grounded",
            "verdict": "ungrounded (1 claim)",
            "outcome": "false alarm",
        },
        "t-price": {
            "graded_source": "epochs",
            "category": "price",
            "gold": "ungrounded",
            "verdict": "grounded",
            "outcome": "missed",
        },
        "t-silence": {
            "graded_source": "none",
            "category": "silence",
            "gold": "grounded",
            "verdict": "judge failure",
            "outcome": "judge failure",
        },
    }
    # Strings are never averaged over epochs: nothing is reduced.
    assert not log.reductions
    assert log.results is not None
    assert {s.scorer for s in log.results.scores} == {"verdict_agreement"}


def test_viewer_sample_list_shows_the_review_columns(tmp_path: Path) -> None:
    log = run_version("v2", {}, FIXTURE_CASES, tmp_path)
    assert log.eval.viewer is not None
    view = log.eval.viewer.task_samples_view
    assert isinstance(view, TaskSamplesView) and view.columns is not None
    visible = [c.id for c in view.columns if c.visible]
    for key in ["category", "gold", "verdict", "outcome"]:
        assert f"score__{VERDICT_SCORER}__{key}" in visible
    assert view.score_color_scales == {"outcome": OUTCOME_ROLES}


def test_the_sample_list_shows_p_ungrounded_rounded_and_the_question_on_one_line() -> None:
    # Issue 26, finding 11: normalising two logprobs leaves float noise in the exact value.
    value = {"judge_failure": 0, "agree": 1, "gold_ungrounded": 0, "p_ungrounded": 0.0301 + 1e-17}
    question = "How much?\n\n1. For kids\n2. For seniors"
    metadata = {"category": "price"}
    fields = review_fields(value, "grounded", metadata, question)
    assert fields["p_shown"] == 0.03
    assert fields["question"] == "How much? 1. For kids 2. For seniors"
    failed = review_fields({**value, "p_ungrounded": math.nan}, "judge failure", metadata, question)
    assert math.isnan(float(failed["p_shown"]))


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
    held = held_score(scored, "logprobs", threshold)
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
