from dataclasses import dataclass

import pytest

from farejudge.scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict

VALID = '{"grounded": false, "unsupported_claims": ["a $2.00 fare"], "reasoning": "P1 says $1.25."}'

READ_AS_VERDICT = [
    ("bare", VALID, False, ["a $2.00 fare"]),
    (
        "json fence",
        'Here is my assessment:\n```json\n{"grounded": true, "unsupported_claims": [], '
        '"reasoning": "All claims are in P1."}\n```',
        True,
        [],
    ),
    ("plain fence", "```\n" + VALID + "\n```", False, ["a $2.00 fare"]),
    (
        "sentence before and after",
        'After checking each claim against the passages: {"grounded": true, '
        '"unsupported_claims": [], "reasoning": "ok"} Let me know if you need more.',
        True,
        [],
    ),
    ("claims list omitted", '{"grounded": true}', True, []),
    (
        "braces inside strings",
        '{"grounded": true, "reasoning": "quotes {\\"x\\"} in P1"}',
        True,
        [],
    ),
    (
        "prose braces before",
        'Fares {see P1} match. {"grounded": true, "unsupported_claims": []}',
        True,
        [],
    ),
    (
        "unicode",
        '{"grounded": false, "unsupported_claims": ["tarifa reducida — 1,25 €"]}',
        False,
        ["tarifa reducida — 1,25 €"],
    ),
    # Found by tests/test_verdict_fuzz.py: the fence inside the string hid the whole verdict.
    (
        "code fence inside reasoning",
        '{"grounded": false, "unsupported_claims": ["x"], "reasoning": "P1 says ```$2```."}',
        False,
        ["x"],
    ),
    (
        "fenced, with a code fence inside reasoning",
        '```json\n{"grounded": true, "reasoning": "see ```P1```"}\n```',
        True,
        [],
    ),
]

FAILURES = [
    ("empty", "", "empty"),
    ("whitespace", "  \n ", "empty"),
    ("prose only", "The answer is grounded in the passages.", "no complete JSON object"),
    (
        "truncated",
        '{"grounded": false, "unsupported_claims": ["the fare is $2',
        "no complete JSON object",
    ),
    (
        "truncated around a quoted verdict",
        '{"grounded": false, "reasoning": "the answer says {\\"grounded\\": true} which',
        "no complete JSON object",
    ),
    ("string false", '{"grounded": "false", "unsupported_claims": []}', "not a JSON boolean"),
    ("number", '{"grounded": 0, "unsupported_claims": []}', "not a JSON boolean"),
    ("null", '{"grounded": null}', "not a JSON boolean"),
    (
        "two objects",
        '{"grounded": true} and then {"grounded": false, "unsupported_claims": ["x"]}',
        "2 verdict objects",
    ),
    ("nested only", '{"verdict": {"grounded": true}}', "no complete JSON object"),
    (
        "claims not a list",
        '{"grounded": false, "unsupported_claims": "the $2 fare"}',
        "not a list of strings",
    ),
    (
        "reasoning not a string",
        '{"grounded": true, "reasoning": ["a"]}',
        "'reasoning' is not a string",
    ),
    ("a list, not an object", '[{"grounded": true}]', "no complete JSON object"),
    # Found by tests/test_verdict_fuzz.py: each of these used to raise out of the parser or be
    # read as the last of two answers.
    ("nested past the recursion limit", "[" * 5000, "no complete JSON object"),
    (
        "a number too long to convert",
        '{"grounded": true, "confidence": ' + "9" * 5000 + "}",
        "no complete JSON object",
    ),
    (
        "grounded given twice",
        '{"grounded": false, "unsupported_claims": ["x"], "grounded": true}',
        "'grounded' is given more than once",
    ),
]


@pytest.mark.parametrize(("name", "reply", "grounded", "claims"), READ_AS_VERDICT)
def test_reads_verdicts(name: str, reply: str, grounded: bool, claims: list[str]) -> None:
    parsed = parse_verdict(reply)
    assert isinstance(parsed, ParsedVerdict), name
    assert parsed.grounded is grounded
    assert parsed.unsupported_claims == claims


@pytest.mark.parametrize(("name", "reply", "reason"), FAILURES)
def test_judge_failures_are_never_guessed(name: str, reply: str, reason: str) -> None:
    parsed = parse_verdict(reply)
    assert isinstance(parsed, JudgeFailure), name
    assert reason in parsed.reason


@dataclass(frozen=True)
class ServerReply:
    """A reply as Inspect hands it to the scorer: `output.completion`, the text of each of the
    message's reasoning parts, and the stop reason. `tests/test_reasoning_wire.py` checks that
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


@pytest.mark.parametrize(
    ("name", "reply", "expected", "where"),
    [(name, *row) for name, row in REASONING_REPLIES.items()],
)
def test_only_the_final_answer_is_read(
    name: str, reply: ServerReply, expected: bool | str, where: str
) -> None:
    parsed = parse_verdict(reply.text, reply.stop_reason, reply.reasoning)
    if isinstance(expected, bool):
        assert isinstance(parsed, ParsedVerdict), (name, parsed)
        assert parsed.grounded is expected, name
    else:
        assert isinstance(parsed, JudgeFailure), (name, parsed)
        assert expected in parsed.reason, (name, parsed.reason)
    if where:
        assert where in parsed.set_aside and "set aside" in parsed.set_aside, parsed.set_aside
    else:
        assert parsed.set_aside == "", parsed.set_aside


def test_what_was_set_aside_is_counted() -> None:
    parsed = parse_verdict(f"<think>\n{THOUGHT}\n</think>\n{FINAL}", reasoning=("a b", ""))
    assert parsed.set_aside == (
        "reasoning (3 chars, in 2 separate parts) set aside; "
        f"reasoning ({len(THOUGHT)} chars, in a <think> block) set aside"
    )
