"""A refusal is a judge failure that says "refusal" and quotes it (issue 26, finding 7).

Inspect marks a refusal three ways: the stop reason `content_filter` (a filter, Anthropic's
`refusal` stop reason), stop details of type `refusal` under the stop reason `stop` (OpenAI's
`refusal` field, Chat Completions and Responses), and text parts flagged `refusal`. Each row
is an output as Inspect builds it, scored on a hand-made sample; tests/evals/test_refusal_wire.py
gets the same outputs from Inspect's own providers.
"""

import json

import pytest
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    Content,
    ContentText,
    ModelOutput,
    ModelUsage,
    StopDetails,
    StopReason,
)

from farejudge.evals.dataset import load_cases
from farejudge.scorers.verdict_scorer import score_output
from tests.support.paths import FIXTURES

CASE = next(c for c in load_cases(FIXTURES / "cases.jsonl") if c.id == "t-price")
SORRY = "I'm sorry, but I can't help with auditing this answer."
VERDICT = json.dumps({"grounded": True, "unsupported_claims": [], "reasoning": "All in P1."})


def output(
    content: str | list[Content],
    stop_reason: StopReason = "stop",
    detail: StopDetails | None = None,
    error: str | None = None,
) -> ModelOutput:
    return ModelOutput(
        model="judge",
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=content, model="judge", source="generate"),
                stop_reason=stop_reason,
                stop_details=detail,
            )
        ],
        usage=ModelUsage(input_tokens=700, output_tokens=12, total_tokens=712),
        error=error,
    )


# name: (output, the failure's reason)
ROWS: dict[str, tuple[ModelOutput, str]] = {
    # What Inspect makes of Chat Completions' `content: null, refusal: ...`, and of a Responses
    # `refusal` content part: one refusal text part, stop "stop", details of type refusal.
    "OpenAI refusal field": (
        output(
            [ContentText(text=SORRY, refusal=True)],
            detail=StopDetails(type="refusal", explanation=SORRY),
        ),
        f'refusal: "{SORRY}"',
    ),
    "refusal text part alone": (
        output([ContentText(text=SORRY, refusal=True)]),
        f'refusal: "{SORRY}"',
    ),
    # Anthropic's `refusal` stop reason, with the stop details Opus 4.7 and later send.
    "Anthropic refusal stop reason, with details": (
        output(
            "",
            "content_filter",
            StopDetails(type="refusal", category="cyber", explanation="Declined: cyber."),
        ),
        'refusal (cyber): "Declined: cyber."',
    ),
    "content filter, the reply's text": (
        output("I can't help with that request.", "content_filter"),
        'refusal: "I can\'t help with that request."',
    ),
    "content filter, the provider's error": (
        output(
            "Sorry, but I am unable to help with that request.",
            "content_filter",
            error="Output blocked by content filtering policy",
        ),
        'refusal: "Output blocked by content filtering policy"',
    ),
    "content filter, nothing said": (output("", "content_filter"), "refusal, with no text"),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_a_refusal_is_a_judge_failure_that_quotes_it(name: str) -> None:
    judged, reason = ROWS[name]
    score = score_output(CASE, judged)
    assert score.answer == "judge failure"
    assert score.metadata is not None and score.metadata["failure"] == reason
    assert score.explanation is not None
    assert score.explanation.startswith(f"Judge failure: {reason}. It counts as no agreement.")
    assert isinstance(score.value, dict) and score.value["judge_failure"] == 1


def test_a_reply_with_no_refusal_marker_is_read() -> None:
    assert score_output(CASE, output(VERDICT)).answer == "grounded"
    # Stop details of another kind are no refusal.
    detail = StopDetails(type="end_turn", explanation="x")
    assert score_output(CASE, output(VERDICT, detail=detail)).answer == "grounded"
