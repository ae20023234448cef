"""The judge's graded verdict: P(ungrounded), read off its token probabilities. Pure.

Where the value of the verdict's "grounded" key begins, the judge chose between `true` and
`false`; the probabilities it gave the alternatives there that begin either way, normalised
over the two, are its P(ungrounded). The verdict is found as `parse_verdict` finds it (the
final answer after any reasoning, a fenced block if there is one, the one top-level object
with a "grounded" key), in the reply's text and again in the tokens' text: a provider may
have moved the judge's reasoning out of the reply but not out of its tokens.
"""

import json
import math
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any, Literal

from inspect_ai.model import Logprob, ModelOutput

from farejudge.scorers.graded_option import GradedMode
from farejudge.scorers.verdict import answer_regions, split_inline, top_level_values

GradedSource = Literal["logprobs", "epochs", "none"]
"""Where a sample's `p_ungrounded` came from; "none" where it is NaN."""


@dataclass(frozen=True)
class NoGrade:
    """Why the logprobs gave no P(ungrounded), in words for the viewer."""

    reason: str


Reading = float | NoGrade
"""What the logprobs said: P(ungrounded), or why they gave none."""


_COLON = re.compile(r"[ \t\r\n]*:[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_JSON_SPACE = " \t\r\n"
_WORDS = ("true", "false")


@dataclass(frozen=True)
class VerdictPlace:
    start: int
    """Where the verdict object opens."""
    value: int
    """Where the value of its "grounded" key begins."""
    word: str
    """That value: true or false."""


def _grounded_value(text: str, start: int) -> int | None:
    """Where the value of the "grounded" key of the valid JSON object at `start` begins."""
    depth = 0
    i = start
    while i < len(text):
        ch = text[i]
        if ch == '"':
            quoted = _STRING.match(text, i)
            if quoted is None:
                return None
            end = quoted.end()
            colon = _COLON.match(text, end)
            # At depth 1 a string followed by a colon is one of the object's own keys.
            if depth == 1 and colon and json.loads(quoted.group()) == "grounded":
                return colon.end()
            i = end
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return None
        i += 1
    return None


def _verdicts_in(text: str, offset: int) -> list[VerdictPlace]:
    """The top-level JSON objects with a "grounded" key, as `parse_verdict` scans for them."""
    found = []
    for start, value in top_level_values(text):
        if isinstance(value, dict) and "grounded" in value:
            at = _grounded_value(text, start)
            word = json.dumps(value["grounded"])
            if at is not None:
                found.append(VerdictPlace(offset + start, offset + at, word))
    return found


def locate_verdict(text: str) -> VerdictPlace | None:
    """The one verdict object of a reply, where `parse_verdict` reads it; None if not one."""
    split = split_inline(text)
    if split.unclosed:
        return None
    base = len(text) - len(split.answer)
    regions = answer_regions(split.answer)
    found = [v for start, part in regions for v in _verdicts_in(part, base + start)]
    if len(found) != 1 or found[0].word not in _WORDS:
        return None
    return found[0]


def _token_text(tokens: list[Logprob]) -> tuple[str, list[int]]:
    """The tokens' text and where each token starts in it.

    Their bytes where every token has them: a character split over tokens (OpenAI gives each
    part a token string of its own making) is whole again in the joined bytes.
    """
    if all(t.bytes is not None for t in tokens):
        raw = b""
        starts = []
        for t in tokens:
            # A boundary inside a character counts from that character's start.
            starts.append(len(raw.decode("utf-8", errors="ignore")))
            raw += bytes(t.bytes or [])
        return raw.decode("utf-8", errors="replace"), starts
    starts, at = [], 0
    for t in tokens:
        starts.append(at)
        at += len(t.token)
    return "".join(t.token for t in tokens), starts


def _word(alternative: str, before: str) -> str | None:
    """Which of true or false the alternative token begins, in place of one that carried
    `before` ahead of the value; None if neither."""
    if before.strip(_JSON_SPACE):
        # The chosen token also carried JSON punctuation (`":`): an alternative without it
        # continues some other text.
        if not alternative.startswith(before):
            return None
        alternative = alternative[len(before) :]
    body = alternative.lstrip(_JSON_SPACE)
    if not body:
        return None
    for word in _WORDS:
        if body.startswith(word) or word.startswith(body):
            return word
    return None


def p_ungrounded(output: ModelOutput) -> Reading:
    """The judge's P(ungrounded) from the logprobs of its first choice, or why there is none."""
    logprobs = output.choices[0].logprobs if output.choices else None
    if logprobs is None or not logprobs.content:
        return NoGrade("the provider returned no logprobs")
    reply = output.completion
    in_reply = locate_verdict(reply)
    if in_reply is None:
        return NoGrade("no single verdict object in the reply to read a probability at")
    text, starts = _token_text(logprobs.content)
    in_tokens = locate_verdict(text)
    # The tokens must say what the reply says from the verdict's opening brace through its
    # value: what they say after it has no bearing on the probabilities there.
    if in_tokens is None or (
        text[in_tokens.start : in_tokens.value + len(in_tokens.word)]
        != reply[in_reply.start : in_reply.value + len(in_reply.word)]
    ):
        return NoGrade("the tokens' text does not match the reply's verdict")
    # The token the value begins in: the last one starting at or before it.
    index = max(i for i, start in enumerate(starts) if start <= in_tokens.value)
    chosen = logprobs.content[index]
    before = text[starts[index] : in_tokens.value]
    if not chosen.top_logprobs:
        return NoGrade("the provider returned no alternatives at the verdict's token")
    # The chosen token with its alternatives, once each (a provider may list it among them).
    alternatives = {top.token: top.logprob for top in chosen.top_logprobs}
    alternatives.setdefault(chosen.token, chosen.logprob)
    mass = {"true": 0.0, "false": 0.0}
    for token, logprob in alternatives.items():
        side = _word(token, before)
        if side is not None:
            mass[side] += math.exp(logprob)
    total = mass["true"] + mass["false"]
    if total <= 0.0:
        return NoGrade("no probability on true or false at the verdict's token")
    return mass["false"] / total


READING = "graded_reading"
"""The key of a sample's metadata that keeps what its logprobs said, read when the judge
replied: the logprobs themselves are then dropped from the sample."""


def reading_record(reading: Reading) -> dict[str, float | str]:
    """The reading as a sample's metadata keeps it, for the viewer and for re-scoring."""
    if isinstance(reading, NoGrade):
        return {"no_grade": reading.reason}
    return {"p_ungrounded": reading}


def reading_of_record(record: Mapping[str, float | str] | None) -> Reading | None:
    """The reading a sample's metadata kept; None where it kept none."""
    if record is None:
        return None
    if "no_grade" in record:
        return NoGrade(str(record["no_grade"]))
    return float(record["p_ungrounded"])


def record_reading(metadata: MutableMapping[str, Any], reading: Reading) -> None:
    """Keep what the logprobs said in a sample's metadata, as the judge replies."""
    metadata[READING] = reading_record(reading)


def sample_reading(output: ModelOutput, metadata: Mapping[str, Any]) -> Reading:
    """What the judge's token probabilities say of its verdict in a scored sample: as read when
    it replied (`record_reading`); else read off its output (a log from before readings were
    kept, whose output has its logprobs)."""
    recorded = reading_of_record(metadata.get(READING))
    return recorded if recorded is not None else p_ungrounded(output)


@dataclass(frozen=True)
class GradedScore:
    """A sample's graded score, where it came from, and a line saying so for the viewer."""

    p_ungrounded: float
    """NaN where there is none."""
    source: GradedSource
    line: str
    """What the explanation says of it: empty where the score says no more than the verdict,
    or than the run's option (the value's `graded_source` and the docs say which)."""


def graded_score(mode: GradedMode, grounded: bool | None, reading: Reading | None) -> GradedScore:
    """The graded score of a verdict (None: a judge failure) under `mode`; `reading` is what the
    logprobs said, where they were asked for."""
    # A line in each of thousands of explanations costs every sample (Inspect shortens each
    # explanation in each summary it makes of a sample): only what is this sample's own is said.
    if grounded is None or mode == "off":
        return GradedScore(math.nan, "none", "")
    if mode == "epochs":
        return GradedScore(0.0 if grounded else 1.0, "epochs", "")
    if reading is None:
        reading = NoGrade("the provider returned no logprobs")
    if isinstance(reading, NoGrade):
        return GradedScore(math.nan, "none", f"No graded score: {reading.reason}.")
    return GradedScore(
        reading,
        "logprobs",
        f"Graded: P(ungrounded) = {reading:.2f} from the judge's token probabilities.",
    )
