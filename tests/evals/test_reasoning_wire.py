"""Each reasoning server's reply, in that server's wire format, reaches the scorer exactly as a
row of the parser's table says (`REASONING_REPLIES` in tests/scorers/test_verdict_parser.py).

Inspect's own providers are pointed at a stand-in on loopback that answers one request with one
documented reply shape: vLLM with and without its reasoning parser, Ollama, DeepSeek's API,
OpenAI's Responses API and Anthropic's Messages API.
"""

import asyncio
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from farejudge.scorers.verdict_scorer import reasoning_parts
from tests.support.json_server import JsonHandler, serving
from tests.support.verdict_replies import (
    DRAFT,
    FINAL,
    REASONING_REPLIES,
    SUMMARY,
    THINKING,
    THOUGHT,
    THOUGHT_CUT,
    ServerReply,
)

USAGE = {"prompt_tokens": 700, "completion_tokens": 60, "total_tokens": 760}


def chat(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    """An OpenAI-compatible chat completion whose one choice is `message`."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "judge",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": USAGE,
    }


def response(output: list[dict[str, Any]], incomplete: str | None = None) -> dict[str, Any]:
    """An OpenAI Responses API response with these output items."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": "incomplete" if incomplete else "completed",
        "incomplete_details": {"reason": incomplete} if incomplete else None,
        "model": "gpt-5",
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 700,
            "output_tokens": 60,
            "total_tokens": 760,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 40},
        },
    }


# A reasoning item as gpt-5 and the o-series return it: the summary in parts, the reasoning
# itself encrypted.
REASONING_ITEM = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": part} for part in SUMMARY.split("\n\n")],
    "encrypted_content": "gAAAAABo-encrypted",
}
MESSAGE_ITEM = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": FINAL, "annotations": []}],
}


def messages(content: list[dict[str, Any]]) -> dict[str, Any]:
    """An Anthropic Messages API message with these content blocks."""
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-6",
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 700, "output_tokens": 60},
    }


# (row of the parser's table, the server, Inspect's model name, what the server sends).
OPENAI_WIRE: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "template opened <think>",
        "vLLM, no reasoning parser",
        "vllm/Qwen/QwQ-32B",
        chat({"content": f"{THOUGHT}\n</think>\n\n{FINAL}"}),
    ),
    (
        "template opened <think>, no verdict after it",
        "Ollama",
        "ollama/deepseek-r1:8b",
        chat({"content": f"draft {DRAFT} … </think>\n\nI cannot decide"}),
    ),
    (
        "template opened <think>, fenced draft, bare verdict",
        "vLLM, no reasoning parser",
        "vllm/Qwen/Qwen3-8B",
        chat(
            {
                "content": f"Let me draft it:\n```json\n{DRAFT}\n```\nBut P1 says $30.\n"
                f"</think>\n\n{FINAL}"
            }
        ),
    ),
    (
        "template opened <think>, cut off inside it",
        "vLLM, no reasoning parser",
        "vllm/Qwen/QwQ-32B",
        chat({"content": THOUGHT_CUT}, "length"),
    ),
    (
        "<think> opened, cut off inside it",
        "Ollama",
        "ollama/qwen3:8b",
        chat({"content": f"<think>\n{THOUGHT_CUT}"}, "length"),
    ),
    (
        "<think> opened, never closed",
        "vLLM, no reasoning parser",
        "vllm/Qwen/Qwen3-8B",
        chat({"content": f"<think>\n{THOUGHT}\n\n{DRAFT}"}),
    ),
    (
        "<think> block",
        "Ollama before 0.9",
        "ollama/deepseek-r1:8b",
        chat({"content": f"<think>\n{THOUGHT}\n</think>\n\n{FINAL}"}),
    ),
    (
        "<think> block, nothing after it",
        "vLLM, no reasoning parser",
        "vllm/Qwen/QwQ-32B",
        chat({"content": f"<think>\n{THOUGHT}\n</think>"}),
    ),
    (
        "reasoning field",
        "vLLM --reasoning-parser deepseek_r1, before 0.11",
        "vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        chat({"content": FINAL, "reasoning_content": THOUGHT}),
    ),
    (
        "reasoning field",
        "vLLM --reasoning-parser qwen3, 0.11 on",
        "vllm/Qwen/Qwen3-8B",
        chat({"content": FINAL, "reasoning": THOUGHT}),
    ),
    (
        "reasoning field",
        "DeepSeek API",
        "deepseek/deepseek-reasoner",
        chat({"content": FINAL, "reasoning_content": THOUGHT}),
    ),
    (
        "reasoning field",
        "Ollama /v1, think on",
        "ollama/qwen3:8b",
        chat({"content": FINAL, "reasoning": THOUGHT}),
    ),
    (
        "reasoning field, no verdict after it",
        "vLLM --reasoning-parser deepseek_r1",
        "vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        chat({"content": "I cannot decide", "reasoning_content": f"draft {DRAFT} …"}),
    ),
    (
        "reasoning field, cut off inside it",
        "vLLM --reasoning-parser deepseek_r1",
        "vllm/deepseek-ai/DeepSeek-R1-Distill-Qwen-7B",
        chat({"content": None, "reasoning_content": THOUGHT_CUT}, "length"),
    ),
    (
        "thinking field",
        "Ollama's native field, relayed",
        "ollama/qwen3:8b",
        chat({"content": FINAL, "thinking": THOUGHT}),
    ),
    (
        "verdict, then cut off",
        "vLLM",
        "vllm/Qwen/Qwen2.5-7B-Instruct",
        chat({"content": f"{FINAL}\n\nWait, let me reconsider the"}, "length"),
    ),
    (
        "Responses reasoning item, then message",
        "OpenAI Responses API",
        "openai/gpt-5",
        response([REASONING_ITEM, MESSAGE_ITEM]),
    ),
    (
        "Responses incomplete at max_output_tokens during reasoning",
        "OpenAI Responses API",
        "openai/gpt-5",
        response([REASONING_ITEM], incomplete="max_output_tokens"),
    ),
]

ANTHROPIC_WIRE: list[tuple[str, dict[str, Any]]] = [
    (
        "Anthropic thinking block, then text",
        messages(
            [
                {"type": "thinking", "thinking": THINKING, "signature": "EqQBCkYIBRgCKkB"},
                {"type": "text", "text": f"Here is my verdict:\n```json\n{FINAL}\n```"},
            ]
        ),
    ),
    (
        "Anthropic redacted_thinking block, then text",
        messages(
            [
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                {"type": "text", "text": FINAL},
            ]
        ),
    ),
]


class StandIn(JsonHandler):
    """Answers every request with `body`, the reply the test under way has set."""

    body: ClassVar[dict[str, Any]] = {}

    def do_POST(self) -> None:
        self.read_json()
        # Inspect counts an Anthropic thinking block's tokens with a second request.
        counted = self.path.endswith("/count_tokens")
        self.send_json(200, {"input_tokens": 40} if counted else self.body)


@pytest.fixture(scope="module")
def stand_in() -> Iterator[str]:
    """One server for the module: Inspect's vLLM provider keeps the first base URL it was given
    for a model for the rest of the process."""
    with serving(StandIn) as url:
        yield url


def generated(model: str, base_url: str, **model_args: Any) -> ServerReply:
    """What the scorer is given of the stand-in's reply, generated through Inspect's `model`."""
    judge = get_model(
        model,
        base_url=base_url,
        api_key="none",
        config=GenerateConfig(max_retries=1, max_tokens=4096),
        memoize=False,
        **model_args,
    )
    output: ModelOutput = asyncio.run(judge.generate("Judge this answer."))
    return ServerReply(
        output.completion, tuple(reasoning_parts(output.message)), output.stop_reason
    )


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("row", "server", "model", "body"),
    OPENAI_WIRE,
    ids=[f"{server}: {row}" for row, server, _, _ in OPENAI_WIRE],
)
def test_openai_compatible_replies_reach_the_scorer_as_the_table_says(
    stand_in: str, row: str, server: str, model: str, body: dict[str, Any]
) -> None:
    StandIn.body = body
    assert generated(model, stand_in) == REASONING_REPLIES[row][0], server


@pytest.mark.subprocess
@pytest.mark.parametrize(("row", "body"), ANTHROPIC_WIRE, ids=[row for row, _ in ANTHROPIC_WIRE])
def test_anthropic_replies_reach_the_scorer_as_the_table_says(
    stand_in: str, row: str, body: dict[str, Any]
) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    StandIn.body = body
    # The SDK wants /v1 left off. Not streamed: the stand-in answers in one JSON body.
    reply = generated("anthropic/claude-sonnet-4-6", stand_in.removesuffix("/v1"), streaming=False)
    assert reply == REASONING_REPLIES[row][0]
