"""The review columns of the verdict score and the viewer's sample list: category, gold,
verdict, outcome."""

import math
from pathlib import Path

from inspect_ai.viewer import TaskSamplesView

from farejudge.evals.dataset import load_cases
from farejudge.scorers.viewer_columns import OUTCOME_ROLES, VERDICT_SCORER, review_fields
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
