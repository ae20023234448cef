import asyncio
import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import cast

import pytest
from inspect_ai.model import ModelName
from inspect_ai.scorer import Metric, SampleScore, Target, Value
from inspect_ai.solver import TaskState

from farejudge.evals.dataset import case_to_sample, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.scorers.claims import compare_claims
from farejudge.scorers.confusion import Confusion
from farejudge.scorers.metrics import (
    claim_precision,
    claim_recall,
    cohen_kappa,
    confusion,
    verdict_accuracy,
)
from farejudge.scorers.verdict_scorer import score_reply, verdict_agreement
from farejudge.simulate.scripted_judge import mock_output

CASES = {c.id: c for c in load_cases(Path(__file__).parent / "fixtures" / "cases.jsonl")}


def state_for(case_id: str, reply: str, stop_reason: str = "stop") -> TaskState:
    sample = case_to_sample(CASES[case_id], load_prompt_version())
    return TaskState(
        model=ModelName("mockllm/model"),
        sample_id=case_id,
        epoch=1,
        input=sample.input,
        messages=[],
        target=Target(sample.target),
        output=mock_output(reply, stop_reason),
        metadata=sample.metadata,
    )


def run_scorer(state: TaskState) -> SampleScore:
    score = asyncio.run(verdict_agreement()(state, state.target))
    assert score is not None
    return SampleScore(score=score, sample_id=state.sample_id, sample_metadata=state.metadata)


def test_agreeing_ungrounded_verdict_with_longer_quoted_claim() -> None:
    reply = json.dumps(
        {
            "grounded": False,
            "unsupported_claims": ["A youth monthly pass costs $25 and covers riders"],
            "reasoning": "P1 says $30.",
        }
    )
    score = run_scorer(state_for("t-price", reply)).score
    assert score.value == {
        "agree": 1,
        "judge_failure": 0,
        "gold_ungrounded": 1,
        "judge_ungrounded": 1,
        "claims_gold": 1,
        "claims_judge": 1,
        "claims_matched": 1,
        "claims_not_in_answer": 0,
    }
    assert score.answer == "ungrounded (1 claim)"
    assert score.explanation is not None
    assert score.explanation.startswith("Agree: gold and judge both say ungrounded.")
    assert score.metadata is not None and score.metadata["verdict"]["reasoning"] == "P1 says $30."


def test_disagreement_lists_missed_extra_and_invented_claims() -> None:
    reply = json.dumps(
        {"grounded": False, "unsupported_claims": ["Renewal is in person", "costs $5 online"]}
    )
    score = run_scorer(state_for("t-silence", reply)).score
    assert isinstance(score.value, dict)
    assert score.value["agree"] == 0
    assert score.value["claims_not_in_answer"] == 1
    assert score.explanation is not None
    assert "Disagree: gold says grounded, the judge says ungrounded." in score.explanation
    assert (
        'Extra (flagged by the judge, not in gold): "Renewal is in person"; "costs $5 online"'
        in (score.explanation)
    )
    assert 'Not a quotation of the answer: "costs $5 online"' in score.explanation


def test_missed_claim_when_judge_says_grounded() -> None:
    score = run_scorer(state_for("t-price", '{"grounded": true, "unsupported_claims": []}')).score
    assert isinstance(score.value, dict)
    assert (score.value["agree"], score.value["claims_matched"], score.value["claims_gold"]) == (
        0,
        0,
        1,
    )
    assert score.explanation is not None
    assert 'Missed (in gold, not flagged by the judge): "A youth monthly pass costs $25"' in (
        score.explanation
    )


@pytest.mark.parametrize("reply", ["", '{"grounded": "true"}', '{"grounded": false, "unsupp'])
def test_unparseable_reply_is_a_judge_failure_not_agreement(reply: str) -> None:
    score = run_scorer(state_for("t-conv", reply)).score
    assert isinstance(score.value, dict)
    assert score.value["agree"] == 0
    assert score.value["judge_failure"] == 1
    assert math.isnan(float(score.value["judge_ungrounded"] or 0))
    assert score.answer == "judge failure"
    assert score.reason == "grader_failed"
    assert score.metadata == {"verdict": None, "failure": score.metadata["failure"]}  # type: ignore[index]


def test_cut_off_reply_says_so() -> None:
    score = score_reply(CASES["t-conv"], '{"grounded": true, "reasoning": "The fare', "max_tokens")
    assert score.explanation is not None and "cut off at the token limit" in score.explanation


def test_claim_matching_is_one_to_one() -> None:
    answer = "It costs $25. It covers ages 6 to 18."
    cmp = compare_claims(["It costs $25", "costs $25."], ["costs $25"], answer)
    assert len(cmp.matched) == 1 and len(cmp.extra) == 1 and cmp.missed == []
    assert cmp.not_in_answer == []


def test_confusion_and_kappa_by_hand() -> None:
    # 20 cases: tp=6, fn=4, fp=2, tn=8. po=0.7; pe=0.5*0.4+0.5*0.6=0.5; kappa=0.4
    table = Confusion(tp=6, fn=4, fp=2, tn=8)
    assert table.accuracy == pytest.approx(0.7)
    assert table.precision == pytest.approx(0.75)
    assert table.recall == pytest.approx(0.6)
    assert table.balanced_accuracy == pytest.approx((0.6 + 0.8) / 2)
    assert table.f1 == pytest.approx(2 * 6 / (12 + 2 + 4))
    assert table.kappa == pytest.approx(0.4)
    assert math.isnan(Confusion(tn=5).kappa)
    assert math.isnan(Confusion(tn=5).precision)


def test_metrics_count_failures_against_accuracy_only_visibly() -> None:
    scores = [
        run_scorer(
            state_for("t-price", '{"grounded": false, "unsupported_claims": ["costs $25"]}')
        ),
        run_scorer(state_for("t-silence", '{"grounded": true, "unsupported_claims": []}')),
        run_scorer(state_for("t-conv", "I cannot decide.")),
    ]
    assert apply(verdict_accuracy(), scores) == pytest.approx(2 / 3)
    assert confusion(scores) == Confusion(tp=1, tn=1)
    assert apply(cohen_kappa(), scores) == 1.0
    assert apply(claim_precision(), scores) == 1.0
    assert apply(claim_recall(), scores) == 1.0


def apply(m: Metric, scores: list[SampleScore]) -> Value:
    # Inspect's `Metric` also admits the pre-0.3.64 signature over bare scores; these take
    # sample scores.
    return cast(Callable[[list[SampleScore]], Value], m)(scores)
