"""Inspect's request and response types to and from llama-cpp-python's chat completion.

Pure functions, tested without a model: a `GenerateConfig` becomes
`Llama.create_chat_completion` keyword arguments, chat messages become role/content
dicts, and a completion dict (or llama.cpp's context-overflow error) becomes a
`ModelOutput` with llama.cpp's own token usage and an Inspect stop reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    StopReason,
)

__all__ = [
    "generate_kwargs",
    "messages_to_dicts",
    "output_from_response",
    "overflow_output",
    "response_format",
    "stop_reason",
    "usage_from_response",
]


def response_format(schema: ResponseSchema | None) -> dict[str, Any] | None:
    """Map Inspect's structured-output schema onto llama-cpp-python's `response_format`.

    llama-cpp-python compiles `{"type": "json_object", "schema": ...}` into a GBNF grammar,
    so decoding cannot leave the schema. (Its OpenAI-style `"json_schema"` type is not
    accepted by every 0.3.x release, hence `json_object`.)
    """
    if schema is None:
        return None
    return {
        "type": "json_object",
        "schema": schema.json_schema.model_dump(exclude_none=True, by_alias=True),
    }


def generate_kwargs(config: GenerateConfig) -> dict[str, Any]:
    """Map an Inspect `GenerateConfig` onto `Llama.create_chat_completion` keyword args.

    Unset fields are left out so llama-cpp-python's own defaults apply (temperature 0.2,
    top_p 0.95, top_k 40, no token limit besides the context window). `extra_body` keys
    are passed through unchanged and win over the mapped fields.
    """
    kwargs: dict[str, Any] = {}
    if config.max_tokens is not None:
        kwargs["max_tokens"] = config.max_tokens
    if config.temperature is not None:
        kwargs["temperature"] = config.temperature
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.top_k is not None:
        kwargs["top_k"] = config.top_k
    if config.seed is not None:
        kwargs["seed"] = config.seed
    if config.stop_seqs:
        kwargs["stop"] = list(config.stop_seqs)
    if config.frequency_penalty is not None:
        kwargs["frequency_penalty"] = config.frequency_penalty
    if config.presence_penalty is not None:
        kwargs["presence_penalty"] = config.presence_penalty
    fmt = response_format(config.response_schema)
    if fmt is not None:
        kwargs["response_format"] = fmt
    if config.extra_body:
        # Escape hatch for llama.cpp options Inspect has no field for (repeat_penalty,
        # min_p, a raw response_format using maxItems, which Inspect's JSONSchema lacks).
        kwargs.update(config.extra_body)
    return kwargs


def messages_to_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Convert Inspect chat messages to the `{"role", "content"}` dicts llama.cpp expects.

    The GGUF's own chat template (read from its metadata) renders them, so no prompt
    formatting happens here.
    """
    converted: list[dict[str, str]] = []
    for message in messages:
        if isinstance(message, ChatMessageSystem):
            role = "system"
        elif isinstance(message, ChatMessageUser):
            role = "user"
        elif isinstance(message, ChatMessageAssistant):
            role = "assistant"
        else:
            raise ValueError(f"gguf: unsupported message role '{message.role}' (no tool calling)")
        converted.append({"role": role, "content": message.text})
    return converted


def stop_reason(
    finish_reason: str | None, *, total_tokens: int = 0, n_ctx: int | None = None
) -> StopReason:
    """Map llama.cpp's finish_reason onto Inspect's StopReason.

    llama.cpp says "length" both for `max_tokens` and for a full context window; the
    latter is told apart by the token count so Inspect can report `model_length`.
    """
    if finish_reason == "stop":
        return "stop"
    if finish_reason == "length":
        if n_ctx is not None and total_tokens >= n_ctx:
            return "model_length"
        return "max_tokens"
    if finish_reason in ("tool_calls", "function_call"):
        return "tool_calls"
    return "unknown"


def usage_from_response(response: Mapping[str, Any]) -> ModelUsage | None:
    """Token usage as counted by llama.cpp itself (so Inspect never fetches a tokenizer)."""
    usage = response.get("usage")
    if not isinstance(usage, Mapping):
        return None
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    total_tokens = int(usage.get("total_tokens") or prompt_tokens + completion_tokens)
    return ModelUsage(
        input_tokens=prompt_tokens,
        output_tokens=completion_tokens,
        total_tokens=total_tokens,
    )


def output_from_response(
    response: Mapping[str, Any],
    *,
    model: str,
    n_ctx: int | None = None,
    elapsed: float | None = None,
) -> ModelOutput:
    """Build a ModelOutput from a `create_chat_completion` response dict."""
    usage = usage_from_response(response)
    total_tokens = usage.total_tokens if usage is not None else 0
    choices: list[ChatCompletionChoice] = []
    for choice in response.get("choices") or []:
        message = choice.get("message") or {}
        content = message.get("content") or ""
        choices.append(
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=content, model=model, source="generate"),
                stop_reason=stop_reason(
                    choice.get("finish_reason"), total_tokens=total_tokens, n_ctx=n_ctx
                ),
            )
        )
    if not choices:
        choices.append(
            ChatCompletionChoice(
                message=ChatMessageAssistant(content="", model=model, source="generate"),
                stop_reason="unknown",
            )
        )
    return ModelOutput(model=model, choices=choices, usage=usage, time=elapsed)


def overflow_output(ex: Exception, *, model: str) -> ModelOutput | None:
    """The `model_length` output for a prompt that overflows the context, else None."""
    # llama-cpp-python raises a bare ValueError when the prompt alone overflows n_ctx;
    # reported as an output with no usage, as Inspect's hosted providers report a prompt over
    # the context window, so the task errors the sample the same way for every provider
    # (evals/provider_errors.py) instead of Inspect retrying it.
    if not (isinstance(ex, ValueError) and "exceed context window" in str(ex)):
        return None
    return ModelOutput.from_content(
        model=model, content="", stop_reason="model_length", error=str(ex)
    )
