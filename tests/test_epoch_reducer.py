"""The task's epoch reducer gives what Inspect's mean gives, for one epoch and for several."""

import pytest
from inspect_ai.scorer import Score, mean_score

from farejudge.core.case_schema import Verdict
from farejudge.scorers.epoch_reducer import epoch_mean
from farejudge.scorers.verdict_scorer import Gold, score_reply

GOLD = Gold(
    label=Verdict(grounded=False, unsupported_claims=["It costs $45"]),
    answer="It costs $45. Passes load onto a Tap Card.",
    rationale="P1 says $43.",
)
REPLIES = [
    '{"grounded": false, "unsupported_claims": ["It costs $45"], "reasoning": "P1 says $43."}',
    '{"grounded": true, "unsupported_claims": [], "reasoning": "fine"}',
    "I cannot tell.",  # a judge failure: judge_ungrounded is NaN
]


def same(a: Score, b: Score) -> bool:
    # repr, because NaN (a judge failure's judge_ungrounded) equals nothing, itself included.
    return repr(a.value) == repr(b.value) and (a.answer, a.explanation, a.reason, a.metadata) == (
        b.answer,
        b.explanation,
        b.reason,
        b.metadata,
    )


@pytest.mark.parametrize("reply", REPLIES)
def test_one_epoch_is_inspects_mean(reply: str) -> None:
    score = score_reply(GOLD, reply)
    assert same(epoch_mean()([score]), mean_score()([score]))


def test_several_epochs_are_inspects_mean() -> None:
    scores = [score_reply(GOLD, reply) for reply in REPLIES]
    reduced = epoch_mean()(scores)
    assert same(reduced, mean_score()(scores))
    assert isinstance(reduced.value, dict) and reduced.value["agree"] == pytest.approx(1 / 3)
