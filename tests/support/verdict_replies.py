"""Replies of reasoning judges, as Inspect hands them to the scorer, with what must be read.

The parser's table (tests/scorers/test_verdict_parser.py) and the wire tests, which send each
through a server's real shape (tests/evals/test_reasoning_wire.py), share these.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerReply:
    """A reply as Inspect hands it to the scorer: `output.completion`, the text of each of the
    message's reasoning parts, and the stop reason. `tests/evals/test_reasoning_wire.py` checks that
    each server's wire shape reaches the scorer as exactly this."""

    text: str
    reasoning: tuple[str, ...] = ()
    stop_reason: str = "stop"


FINAL = (
    '{"grounded": false, "unsupported_claims": ["A youth monthly pass costs $25"], '
    '"reasoning": "P1 says $30."}'
)
DRAFT = '{"grounded": true, "unsupported_claims": [], "reasoning": "The price matches P1."}'
THOUGHT = (
    f"Okay, the answer says a youth monthly pass costs $25. First draft: {DRAFT} "
    "Wait, P1 says $30, so that claim is unsupported."
)
# Where a thought stops when the token limit ends it.
THOUGHT_CUT = f"Okay, the answer says a youth monthly pass costs $25. First draft: {DRAFT} Wait, P1"
# Anthropic's thinking text, and an OpenAI reasoning summary (bold headline, then prose).
THINKING = f"The user wants a groundedness verdict. Draft: {DRAFT}. Checking P1: it says $30."
SUMMARY = f"**Checking the fare**\n\nA first draft was {DRAFT}; P1 gives $30, not $25."

# name: (the reply, grounded or the failure's reason, where the reasoning set aside was).
REASONING_REPLIES: dict[str, tuple[ServerReply, bool | str, str]] = {
    # vLLM or Ollama without a reasoning parser, serving R1, QwQ or Qwen3: the chat template
    # opens <think>, so the reply begins inside the reasoning and holds only the closing tag.
    "template opened <think>": (
        ServerReply(f"{THOUGHT}\n</think>\n\n{FINAL}"),
        False,
        "before a lone </think>",
    ),
    # Issue 17: this draft was read as the verdict.
    "template opened <think>, no verdict after it": (
        ServerReply(f"draft {DRAFT} … </think>\n\nI cannot decide"),
        "no complete JSON object",
        "before a lone </think>",
    ),
    # Issue 17: the fenced draft won over the bare final verdict.
    "template opened <think>, fenced draft, bare verdict": (
        ServerReply(
            f"Let me draft it:\n```json\n{DRAFT}\n```\nBut P1 says $30.\n</think>\n\n{FINAL}"
        ),
        False,
        "before a lone </think>",
    ),
    # Issue 17: cut off inside the reasoning the template opened; no tag reached the reply.
    "template opened <think>, cut off inside it": (
        ServerReply(THOUGHT_CUT, stop_reason="max_tokens"),
        "cut off at the token limit",
        "",
    ),
    "<think> opened, cut off inside it": (
        ServerReply(f"<think>\n{THOUGHT_CUT}", stop_reason="max_tokens"),
        "cut off at the token limit inside its reasoning",
        "after a <think> that never closed",
    ),
    "<think> opened, never closed": (
        ServerReply(f"<think>\n{THOUGHT}\n\n{DRAFT}"),
        "its reasoning never ended",
        "after a <think> that never closed",
    ),
    # The model writes both tags itself (vLLM without a parser, Ollama before 0.9): Inspect
    # moves the block into a reasoning part.
    "<think> block": (ServerReply(FINAL, (THOUGHT,)), False, "in a separate part"),
    # ... except where nothing follows the block: then Inspect leaves it in the text as well.
    "<think> block, nothing after it": (
        ServerReply(f"<think>\n{THOUGHT}\n</think>", (THOUGHT,)),
        "no final answer after its reasoning",
        "in a <think> block",
    ),
    # vLLM with --reasoning-parser (`reasoning_content`; `reasoning` from 0.11 on), DeepSeek's
    # API (`reasoning_content`), Ollama's /v1 with think on (`reasoning`).
    "reasoning field": (ServerReply(FINAL, (THOUGHT,)), False, "in a separate part"),
    "reasoning field, no verdict after it": (
        ServerReply("I cannot decide", (f"draft {DRAFT} …",)),
        "no complete JSON object",
        "in a separate part",
    ),
    "reasoning field, cut off inside it": (
        ServerReply("", (THOUGHT_CUT,), "max_tokens"),
        "cut off at the token limit before any final answer",
        "in a separate part",
    ),
    # Ollama's native `thinking` field, relayed by an OpenAI-compatible proxy: Inspect reads
    # no such field, so the scorer never sees it.
    "thinking field": (ServerReply(FINAL), False, ""),
    # Anthropic extended thinking: a thinking block (Inspect keeps its text as the summary
    # of a redacted part, the signature as its payload), then a text block.
    "Anthropic thinking block, then text": (
        ServerReply(f"Here is my verdict:\n```json\n{FINAL}\n```", (THINKING,)),
        False,
        "in a separate part",
    ),
    "Anthropic redacted_thinking block, then text": (
        ServerReply(FINAL, ("",)),
        False,
        "no readable text, in a separate part",
    ),
    # OpenAI's Responses API: a reasoning item (its summary readable, its content encrypted),
    # then a message.
    "Responses reasoning item, then message": (
        ServerReply(FINAL, (SUMMARY,)),
        False,
        "in a separate part",
    ),
    "Responses incomplete at max_output_tokens during reasoning": (
        ServerReply("", (SUMMARY,), "max_tokens"),
        "cut off at the token limit before any final answer",
        "in a separate part",
    ),
    # A whole verdict parses, but the judge was stopped while it went on: no final answer.
    "verdict, then cut off": (
        ServerReply(f"{FINAL}\n\nWait, let me reconsider the", stop_reason="max_tokens"),
        "cut off at the token limit after a verdict",
        "",
    ),
    "verdict, then the context window ran out": (
        ServerReply(f"{FINAL}\n\nWait", stop_reason="model_length"),
        "cut off at the token limit after a verdict",
        "",
    ),
}
