"""A judge provider that fails on purpose, the ways real providers fail, on synthetic cases.

Registered as `faulty_judge/<name>` so that `eval_retry` can rebuild it from a log. Which case
fails how is the model argument `faults` (case id -> fault), so it is recorded in the log too.
Retries are classified as the OpenAI provider classifies them, with no wait between attempts.
"""

import os
from collections import Counter
from typing import Any, Literal

import anyio
import openai
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    StopReason,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity.wait import wait_base, wait_none

from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import case_id_shown, gold_reply

try:
    import httpx2 as httpx
except ImportError:  # an openai from before httpx2; its errors read the same attributes of either
    import httpx  # type: ignore[no-redef]

Fault = Literal[
    "rate limit, then answers",  # transient: Inspect's retry must absorb it
    "rate limit",  # transient, and never recovers
    "connection dropped",
    "server error",
    "bad request",  # not retryable: escapes on the first attempt
    "key echoed",  # a server that quotes the credential it was sent
    "local crash",  # a local model process that raises anything at all
    "timeout",
    "empty reply",
    "refusal",
    "cut off",
    "prose",
    "interrupt once",  # Ctrl-C, the first time this case is judged
]

# Calls per case id, across runs in this process: what a resumed run paid for again.
CALLS: Counter[str] = Counter()
# Outage faults (rate limit ... local crash, timeout) stop once this variable is set, as a
# real outage ends: `eval_retry` rebuilds the judge from the log, faults and all.
OUTAGE_OVER = "FAULTY_JUDGE_OUTAGE_OVER"
OUTAGE_FAULTS: frozenset[Fault] = frozenset(
    {
        "rate limit",
        "connection dropped",
        "server error",
        "bad request",
        "key echoed",
        "local crash",
        "timeout",
    }
)

_REQUEST = httpx.Request("POST", "https://api.openai.example/v1/chat/completions")


def _status(code: int, message: str) -> httpx.Response:
    return httpx.Response(code, request=_REQUEST, json={"error": {"message": message}})


def provider_exception(fault: Fault, attempt: int) -> BaseException | None:
    """What the judge raises for `fault` on the case's `attempt`-th call, if anything.

    Tests build the error text they expect from it: some of it (openai's default message for
    a dropped connection) is the library's wording, not this project's.
    """
    if fault == "rate limit" or (fault == "rate limit, then answers" and attempt == 1):
        return openai.RateLimitError(
            "Rate limit reached for requests", response=_status(429, "slow down"), body=None
        )
    if fault == "connection dropped":
        return openai.APIConnectionError(request=_REQUEST)
    if fault == "server error":
        return openai.InternalServerError(
            "The server had an error", response=_status(500, "oops"), body=None
        )
    if fault == "bad request":
        return openai.BadRequestError(
            "Invalid 'messages': too long", response=_status(400, "too long"), body=None
        )
    if fault == "key echoed":
        key = os.environ.get("OPENAI_API_KEY", "")
        return openai.AuthenticationError(
            f"Incorrect API key provided: {key}", response=_status(401, "bad key"), body=None
        )
    if fault == "local crash":
        return ValueError("llama_decode returned -1")
    if fault == "interrupt once" and attempt == 1:
        return KeyboardInterrupt()
    return None


_REPLIES: dict[Fault, tuple[str, StopReason]] = {
    "empty reply": ("", "stop"),
    "refusal": ("I can't help with that request.", "content_filter"),
    "cut off": ('{"grounded": true, "unsupported_claims": [], "reasoning": "P1 says', "max_tokens"),
    "prose": ("The answer looks grounded to me.", "stop"),
}


class FaultyJudge(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        faults: dict[str, Fault] | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name,
            base_url=base_url,
            api_key=api_key,
            api_key_vars=[],
            config=config or GenerateConfig(),
        )
        self.faults = faults or {}

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        case_id = case_id_shown(input)
        CALLS[case_id] += 1
        fault = self.faults.get(case_id)
        if fault is None or (fault in OUTAGE_FAULTS and os.environ.get(OUTAGE_OVER)):
            return mock_output(gold_reply(case_id))
        raised = provider_exception(fault, CALLS[case_id])
        if raised is not None:
            raise raised
        if fault == "timeout":
            await anyio.sleep(60)
        text, stop_reason = _REPLIES.get(fault, (gold_reply(case_id), "stop"))
        return mock_output(text, stop_reason)

    def should_retry(self, ex: Exception) -> bool:
        return isinstance(
            ex, openai.RateLimitError | openai.InternalServerError | openai.APIConnectionError
        )

    def retry_wait(self) -> wait_base:
        return wait_none()


@modelapi(name="faulty_judge")
def faulty_judge() -> type[ModelAPI]:
    return FaultyJudge
