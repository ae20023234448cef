"""Read a judge reply as a verdict, or say why it is not one. Pure: no I/O, no guessing.

Only the judge's final answer is read. Its reasoning is set aside unread, wherever it is: a
part the provider delivered apart, a `<think>` block, or the text before a lone `</think>`
(vLLM and Ollama serving DeepSeek-R1, QwQ or Qwen3 open `<think>` in the chat template, so
the reply begins inside the reasoning). A draft verdict in there is not the verdict.
"""

import json
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace

# Fences open and close at the start of a line. JSON strings hold no raw newline, so a fence
# quoted inside the verdict's own strings ("reasoning": "see ```...```") is never taken for one.
_FENCE = re.compile(r"^[ \t]*```[A-Za-z]*[ \t\r]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)
_VERDICT_KEYS = ("grounded", "unsupported_claims", "reasoning")
_THINK_OPEN = re.compile(r"<think\b[^>]*>")
_THINK_CLOSE = "</think>"
# Inspect's stop reasons for a reply the token limit ended.
_CUT_OFF_STOP_REASONS = frozenset({"max_tokens", "model_length"})


@dataclass(frozen=True)
class ParsedVerdict:
    grounded: bool
    unsupported_claims: list[str] = field(default_factory=list)
    reasoning: str = ""
    set_aside: str = ""
    """What of the reply was the judge's reasoning, left unread, in words ("" if none)."""


@dataclass(frozen=True)
class JudgeFailure:
    """The reply holds no verdict that can be read without guessing."""

    reason: str
    set_aside: str = ""
    """What of the reply was the judge's reasoning, left unread, in words ("" if none)."""


def _end_of_braced(text: str, start: int) -> int:
    """Where the bracket group opened at `start` closes, by brackets and JSON strings alone.

    A group that never closes (a reply cut off mid-object) runs to the end of the text, so
    an object quoted inside a broken one is never read as a verdict of its own.
    """
    depth = 0
    in_string = escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


_OPENER = re.compile(r"[{\[]")


class _JsonObject(dict[str, object]):
    """A decoded JSON object that remembers the keys it was given more than once."""

    repeated: frozenset[str] = frozenset()


def _object(pairs: list[tuple[str, object]]) -> _JsonObject:
    # json keeps the last of two equal keys; a reply that says both has said neither.
    obj = _JsonObject(pairs)
    if len(obj) < len(pairs):
        counts = Counter(key for key, _ in pairs)
        obj.repeated = frozenset(key for key, n in counts.items() if n > 1)
    return obj


def top_level_values(text: str) -> Iterator[tuple[int, object]]:
    """Every JSON object or array at top level of the text, with where it opens, left to right.

    What sits inside one (an object in a list, an object quoted in a string) is not top level.
    """
    decoder = json.JSONDecoder(object_pairs_hook=_object)
    opener = _OPENER.search(text)
    while opener:
        try:
            value, end = decoder.raw_decode(text, opener.start())
        # ValueError covers malformed JSON and integers too long to convert; RecursionError,
        # brackets nested past the interpreter's limit. Either way the group is no verdict.
        except (ValueError, RecursionError):
            end = _end_of_braced(text, opener.start())
        else:
            yield opener.start(), value
        opener = _OPENER.search(text, end)


def answer_regions(reply: str) -> list[tuple[int, str]]:
    """Where in the reply the verdict is looked for, each with where it starts."""
    # A fenced block is where the judge says its answer is; prose around it is ignored.
    return [(m.start(1), m.group(1)) for m in _FENCE.finditer(reply)] or [(0, reply)]


def _candidates(reply: str) -> list[object]:
    return [value for _, region in answer_regions(reply) for _, value in top_level_values(region)]


@dataclass(frozen=True)
class Split:
    """A reply's text cut into its final answer and the reasoning before it."""

    answer: str
    reasoning_chars: int
    where: str
    """Where the reasoning sat, in words; "" where the text held none."""
    unclosed: bool = False


def split_inline(text: str) -> Split:
    """The text after its last `</think>` is the answer; an opening tag after that never closed."""
    openers = list(_THINK_OPEN.finditer(text))
    close = text.rfind(_THINK_CLOSE)
    if openers and openers[-1].start() > close:
        reasoning = text[openers[0].start() :]
        return Split("", _chars(reasoning), "after a <think> that never closed", unclosed=True)
    if close < 0:
        return Split(text, 0, "")
    # Whatever precedes the last closing tag is reasoning, however many blocks it holds.
    where = (
        "in a <think> block"
        if openers
        else "before a lone </think>: the chat template opened the block"
    )
    return Split(text[close + len(_THINK_CLOSE) :], _chars(text[:close]), where)


def _chars(reasoning: str) -> int:
    return len(_THINK_OPEN.sub("", reasoning).replace(_THINK_CLOSE, "").strip())


def _set_aside(split: Split, parts: Sequence[str]) -> str:
    pieces = []
    if parts:
        chars = sum(len(p.strip()) for p in parts)
        size = f"{chars:,} chars" if chars else "no readable text"
        count = "a separate part" if len(parts) == 1 else f"{len(parts)} separate parts"
        pieces.append(f"reasoning ({size}, in {count}) set aside")
    if split.where:
        pieces.append(f"reasoning ({split.reasoning_chars:,} chars, {split.where}) set aside")
    return "; ".join(pieces)


def _cut_off_reason(split: Split) -> str:
    if split.unclosed:
        return "cut off at the token limit inside its reasoning"
    if not split.answer.strip():
        return "cut off at the token limit before any final answer"
    read = _read_answer(split.answer)
    if isinstance(read, JudgeFailure):
        return f"cut off at the token limit ({read.reason})"
    # A judge stopped midway may have gone on to revise what it wrote: it gave no final answer.
    return "cut off at the token limit after a verdict it might have gone on to revise"


def parse_verdict(
    reply: str, stop_reason: str = "stop", reasoning: Sequence[str] = ()
) -> ParsedVerdict | JudgeFailure:
    """The verdict in the judge's final answer, or why there is none.

    `reply` is the reply's text, `reasoning` the text of each reasoning part the provider
    delivered apart from it (Inspect's `ContentReasoning`), `stop_reason` Inspect's.
    """
    split = split_inline(reply)
    set_aside = _set_aside(split, reasoning)
    if stop_reason in _CUT_OFF_STOP_REASONS:
        return JudgeFailure(_cut_off_reason(split), set_aside)
    if split.unclosed:
        return JudgeFailure("its reasoning never ended: <think> opened and never closed", set_aside)
    if set_aside and not split.answer.strip():
        return JudgeFailure("no final answer after its reasoning", set_aside)
    return replace(_read_answer(split.answer), set_aside=set_aside)


def _read_answer(reply: str) -> ParsedVerdict | JudgeFailure:
    if not reply.strip():
        return JudgeFailure("empty reply")
    objects = [o for o in _candidates(reply) if isinstance(o, _JsonObject) and "grounded" in o]
    if not objects:
        return JudgeFailure("no complete JSON object with a 'grounded' key in the reply")
    if len(objects) > 1:
        return JudgeFailure(
            f"{len(objects)} verdict objects in one reply; which one counts is a guess"
        )
    obj = objects[0]
    repeated = [key for key in _VERDICT_KEYS if key in obj.repeated]
    if repeated:
        return JudgeFailure(
            f"{repeated[0]!r} is given more than once in the verdict; which one counts is a guess"
        )
    grounded = obj["grounded"]
    if not isinstance(grounded, bool):
        return JudgeFailure(f"'grounded' is {json.dumps(grounded)}, not a JSON boolean")
    claims = obj.get("unsupported_claims", [])
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        return JudgeFailure("'unsupported_claims' is not a list of strings")
    reasoning = obj.get("reasoning", "")
    if not isinstance(reasoning, str):
        return JudgeFailure("'reasoning' is not a string")
    return ParsedVerdict(grounded=grounded, unsupported_claims=claims, reasoning=reasoning)
