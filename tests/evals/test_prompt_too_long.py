"""A prompt longer than the judge's context window errors the sample, naming the limit (issue 26,
finding 8).

Inspect hands the provider's refusal back as a reply cut off at the context limit (stop reason
`model_length`), which was scored as a judge failure; the judge never saw the case. Through
Inspect's own Anthropic and OpenAI providers against stand-ins that answer with each API's
documented error body.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage

from farejudge.evals.provider_errors import prompt_overflow
from tests.support.cli import task_file
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.paths import FIXTURES
from tests.support.standins.one_reply import OneReply, one_reply

ANTHROPIC_LIMIT = "prompt is too long: 250000 tokens > 200000 maximum"
OPENAI_LIMIT = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "250000 tokens. Please reduce the length of the messages."
)
# Each API's documented error body for a prompt over the context window.
REPLIES: dict[str, tuple[int, dict[str, Any]]] = {
    "/v1/messages": (
        400,
        {"type": "error", "error": {"type": "invalid_request_error", "message": ANTHROPIC_LIMIT}},
    ),
    "/v1/chat/completions": (
        400,
        {
            "error": {
                "message": OPENAI_LIMIT,
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
    ),
}
OVERFLOW = "the prompt does not fit the judge's context window: "
SAID = f"judge unreachable: {OVERFLOW}"
USAGE = ModelUsage(input_tokens=4000, output_tokens=96, total_tokens=4096)


def cut(usage: ModelUsage | None, error: str | None = None, text: str = "") -> ModelOutput:
    output = ModelOutput.from_content("judge", text, stop_reason="model_length", error=error)
    output.usage = usage
    return output


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        # What Inspect's providers make of the refusal: no token generated, so no usage.
        (cut(None, "error code: 400 - {...}", ANTHROPIC_LIMIT), ANTHROPIC_LIMIT),
        (cut(None, None, OPENAI_LIMIT), OPENAI_LIMIT),
        (
            cut(None, "Requested tokens (5000) exceed context window of 4096"),
            "Requested tokens (5000) exceed context window of 4096",
        ),
        # A reply the context window cut off mid-generation is the judge's: scored.
        (cut(USAGE, None, '{"grounded": true, "unsupported'), None),
    ],
)
def test_a_refused_prompt_is_told_from_a_reply_cut_off(
    output: ModelOutput, expected: str | None
) -> None:
    assert prompt_overflow(output) == (None if expected is None else OVERFLOW + expected)


def test_a_reply_cut_off_at_the_token_limit_is_no_overflow() -> None:
    output = ModelOutput.from_content("judge", "", stop_reason="max_tokens")
    assert prompt_overflow(output) is None


@pytest.fixture(scope="module")
def stand_in() -> Iterator[tuple[str, type[OneReply]]]:
    server = one_reply()
    server.replies.update(REPLIES)
    with serving(server) as url:
        yield url, server


def run(model: str, base_url: str, tmp_path: Path, **model_args: Any) -> EvalLog:
    (log,) = eval(
        task_file(),
        # Every case errors: the run is not stopped, so each is seen.
        task_args={"dataset": str(FIXTURES / "cases.jsonl"), "fail_on_error": False},
        model=model,
        model_base_url=base_url,
        model_args=model_args,
        log_dir=str(tmp_path),
        display="none",
        # Anthropic's SDK wants a stream for its default of 32,000 tokens.
        max_tokens=4096,
    )
    return log


@pytest.mark.slow
@pytest.mark.parametrize(
    ("model", "limit"),
    [("anthropic/claude-sonnet-4-6", ANTHROPIC_LIMIT), ("openai/gpt-4o-mini", OPENAI_LIMIT)],
)
def test_an_over_long_prompt_errors_the_sample_naming_the_limit(
    stand_in: tuple[str, type[OneReply]],
    model: str,
    limit: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if model.startswith("anthropic/"):
        pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    url, server = stand_in
    for name, value in {**OFFLINE_OPENAI, "ANTHROPIC_API_KEY": "sk-ant-dummy"}.items():
        monkeypatch.setenv(name, value)
    before = len(server.requests)
    # Anthropic's SDK wants /v1 left off; the stand-in answers in one JSON body, not a stream.
    anthropic = model.startswith("anthropic/")
    log = run(
        model,
        url.removesuffix("/v1") if anthropic else url,
        tmp_path,
        **({"streaming": False} if anthropic else {}),
    )
    assert log.samples is not None and len(log.samples) == 3
    for sample in log.samples:
        assert sample.error is not None and not sample.scores
        assert sample.error.message == SAID + limit
    # One request a case: a refused prompt is not retried.
    assert len(server.requests) - before == 3
