"""A refusal as each API sends it, through Inspect's own providers, is a judge failure that says
"refusal" and quotes it (issue 26, finding 7).

Stand-ins on loopback answer with the documented shapes: OpenAI Chat Completions' `content:
null` with `refusal` set, a Responses API message whose content is a `refusal` part, and an
Anthropic message with the `refusal` stop reason and its stop details.
"""

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from farejudge.evals.dataset import load_cases
from farejudge.scorers.verdict_scorer import score_output
from tests.support.cli import task_file
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.paths import FIXTURES
from tests.support.standins.one_reply import OneReply, one_reply

pytestmark = pytest.mark.slow

SORRY = "I'm sorry, but I can't help with auditing this answer."
CASE = next(c for c in load_cases(FIXTURES / "cases.jsonl") if c.id == "t-price")

CHAT_REFUSAL: dict[str, Any] = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4o-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": None, "refusal": SORRY},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 700, "completion_tokens": 12, "total_tokens": 712},
}
RESPONSES_REFUSAL: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 0,
    "status": "completed",
    "incomplete_details": None,
    "model": "gpt-5-mini",
    "output": [
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "refusal", "refusal": SORRY}],
        }
    ],
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
    "usage": {
        "input_tokens": 700,
        "output_tokens": 12,
        "total_tokens": 712,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
    },
}
ANTHROPIC_REFUSAL: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-opus-4-7",
    "content": [{"type": "text", "text": "Looking at the passages, the"}],
    "stop_reason": "refusal",
    "stop_details": {"type": "refusal", "category": "cyber", "explanation": SORRY},
    "stop_sequence": None,
    "usage": {"input_tokens": 700, "output_tokens": 12},
}
REPLIES = {
    "/v1/chat/completions": (200, CHAT_REFUSAL),
    "/v1/responses": (200, RESPONSES_REFUSAL),
    "/v1/messages": (200, ANTHROPIC_REFUSAL),
}


@pytest.fixture(scope="module")
def stand_in() -> Iterator[tuple[str, type[OneReply]]]:
    server = one_reply()
    server.replies.update(REPLIES)
    with serving(server) as url:
        yield url, server


def generated(model: str, base_url: str, **model_args: Any) -> ModelOutput:
    judge = get_model(
        model,
        base_url=base_url,
        api_key="none",
        config=GenerateConfig(max_retries=1, max_tokens=4096),
        memoize=False,
        **model_args,
    )
    return asyncio.run(judge.generate("Judge this answer."))


@pytest.mark.parametrize(
    ("model", "path"),
    [("openai/gpt-4o-mini", "/v1/chat/completions"), ("openai/gpt-5-mini", "/v1/responses")],
)
def test_an_openai_refusal_is_a_judge_failure_that_quotes_it(
    stand_in: tuple[str, type[OneReply]], model: str, path: str
) -> None:
    url, server = stand_in
    output = generated(model, url)
    assert server.requests[-1] == path
    # As Inspect records it: the stop reason is "stop".
    assert output.stop_reason == "stop"
    score = score_output(CASE, output)
    assert score.answer == "judge failure"
    assert score.metadata is not None and score.metadata["failure"] == f'refusal: "{SORRY}"'


def test_anthropic_s_refusal_stop_reason_is_a_judge_failure_that_quotes_it(
    stand_in: tuple[str, type[OneReply]],
) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    url, _ = stand_in
    # The SDK wants /v1 left off. Not streamed: the stand-in answers in one JSON body.
    output = generated("anthropic/claude-opus-4-7", url.removesuffix("/v1"), streaming=False)
    score = score_output(CASE, output)
    assert score.metadata is not None and score.metadata["failure"] == f'refusal (cyber): "{SORRY}"'


@pytest.mark.parametrize("model", ["openai/gpt-4o-mini", "openai/gpt-5-mini"])
def test_a_refusal_in_a_run_is_scored_as_a_judge_failure_that_says_so(
    stand_in: tuple[str, type[OneReply]],
    model: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, _ = stand_in
    for name, value in OFFLINE_OPENAI.items():
        monkeypatch.setenv(name, value)
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(FIXTURES / "cases.jsonl")},
        model=model,
        model_base_url=url,
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples
    (sample,) = log.samples
    assert sample.error is None
    score = (sample.scores or {})["verdict_agreement"]
    assert score.answer == "judge failure"
    assert score.explanation is not None
    assert score.explanation.startswith(f'Judge failure: refusal: "{SORRY}". It counts as no')
