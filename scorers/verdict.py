"""Read a judge reply as a verdict, or say why it is not one. Pure: no I/O, no guessing."""

import json
import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"```[A-Za-z]*[ \t]*\n?(.*?)```", re.DOTALL)


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


def _top_level_objects(text: str) -> list[object]:
    """Every JSON object or array at top level of the text, left to right.

    What sits inside one (an object in a list, an object quoted in a string) is not top level.
    """
    decoder = json.JSONDecoder()
    found: list[object] = []
    opener = _OPENER.search(text)
    while opener:
        try:
            value, end = decoder.raw_decode(text, opener.start())
            found.append(value)
        except json.JSONDecodeError:
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
    objects = [o for o in _candidates(reply) if isinstance(o, dict) and "grounded" in o]
    if not objects:
        return JudgeFailure("no complete JSON object with a 'grounded' key in the reply")
    if len(objects) > 1:
        return JudgeFailure(
            f"{len(objects)} verdict objects in one reply; which one counts is a guess"
        )
    obj = objects[0]
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
