"""Read a judge reply as a verdict, or say why it is not one. Pure: no I/O, no guessing."""

import json
import re
from collections import Counter
from dataclasses import dataclass, field

# Fences open and close at the start of a line. JSON strings hold no raw newline, so a fence
# quoted inside the verdict's own strings ("reasoning": "see ```...```") is never taken for one.
_FENCE = re.compile(r"^[ \t]*```[A-Za-z]*[ \t\r]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)
_VERDICT_KEYS = ("grounded", "unsupported_claims", "reasoning")


@dataclass(frozen=True)
class ParsedVerdict:
    grounded: bool
    unsupported_claims: list[str] = field(default_factory=list)
    reasoning: str = ""


@dataclass(frozen=True)
class JudgeFailure:
    """The reply holds no verdict that can be read without guessing."""

    reason: str


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


def _top_level_objects(text: str) -> list[object]:
    """Every JSON object or array at top level of the text, left to right.

    What sits inside one (an object in a list, an object quoted in a string) is not top level.
    """
    decoder = json.JSONDecoder(object_pairs_hook=_object)
    found: list[object] = []
    opener = _OPENER.search(text)
    while opener:
        try:
            value, end = decoder.raw_decode(text, opener.start())
            found.append(value)
        # ValueError covers malformed JSON and integers too long to convert; RecursionError,
        # brackets nested past the interpreter's limit. Either way the group is no verdict.
        except (ValueError, RecursionError):
            end = _end_of_braced(text, opener.start())
        opener = _OPENER.search(text, end)
    return found


def _candidates(reply: str) -> list[object]:
    # A fenced block is where the judge says its answer is; prose around it is ignored.
    fenced = _FENCE.findall(reply)
    if fenced:
        return [obj for block in fenced for obj in _top_level_objects(block)]
    return _top_level_objects(reply)


def parse_verdict(reply: str) -> ParsedVerdict | JudgeFailure:
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
