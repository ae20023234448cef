"""The policy values an answer states (prices, ages, counts), with the direction a change must
go to make each false, and a new value written as the old one was."""

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from farejudge.evals.metamorphic.text_edits._characters import NDASH
from farejudge.evals.metamorphic.text_edits._numbers import COUNT_WORDS, Mention, mentions

ValueKind = Literal["price", "age", "period", "count"]
Direction = Literal["up", "down", "any"]

_UNIT = re.compile(
    r"^[\s-]+(?:business\s+|calendar\s+|weekend\s+|more\s+)?"
    r"(?P<unit>days?|months?|years?|minutes?|hours?|weeks?|rides|trips|children|bicycles)\b"
)
_AGE_AFTER = re.compile(
    r"^\s*(?:\+|and older|and over|or older|or over|and up|and under|and younger|or younger"
    r"|or under)\b|^\s*\+"
)
_AGE_BEFORE = re.compile(
    r"\b(?:ages?|aged|seniors|riders|residents|youth|children|kids|turns?|turning|under|over"
    r"|who are)\s+$",
    re.IGNORECASE,
)
_RANGE_AFTER = re.compile(rf"^\s*(?:through|to|{NDASH}|-)\s*\d")
_RANGE_BEFORE = re.compile(rf"(\d+)\s*(?:through|to|{NDASH}|-)\s*$")


@dataclass(frozen=True)
class PolicyValue:
    """A price, age or count in an answer (in digits, or a count word such as "four years"),
    that a change can falsify."""

    mention: Mention
    kind: ValueKind
    direction: Direction
    value: Decimal
    unit: str
    """"$" (dollars), "cents", or the count's unit ("days", "minutes", …; "" for ages)."""


@dataclass(frozen=True)
class Unreadable:
    mention: Mention
    reason: str


def _direction(before: str, after: str) -> Direction | None:
    """Which way a change must go so the sentence becomes false, not merely weaker
    (None: the words around it do not say)."""
    # Only the clause the value sits in: a "free" or "within" in an earlier sentence says
    # nothing about this value.
    b = re.split(r"[.!?;]\s", before)[-1].lower()[-60:]
    a = after.lower()[:40]
    if re.match(r"^\s*(?:\+|and older|and over|or older|or over|and up|or more)", a):
        return "down"
    if re.match(r"^\s*(?:and under|and younger|or younger|or under|or less)\b", a):
        return "up"
    if _RANGE_AFTER.match(after):
        return "down"
    if _RANGE_BEFORE.search(before):
        return "up"
    if re.search(r"\b(?:under|younger than|below|at or below|less than|up to|at most)\s+\$?$", b):
        return "up"
    if re.search(r"\b(?:over|older than|at least|more than|turns?|turning|turn)\s+\$?$", b):
        return "down"
    if re.search(r"\bwithin (?:the|your) (?:last|past)\s+$|\bin the (?:last|past)\s+$", b):
        return "up"
    if re.search(r"\b(?:start|begin)\w*\b.{0,30}$", b) and re.match(r"^[\s-]+days?\s+before", a):
        return "up"
    if re.search(r"\bwithin\s+$", b):
        if re.search(r"\b(?:process\w*|review\w*|mail\w*|issu\w*|approv\w*|takes?)\b", b):
            return "down"
        if re.search(r"\bfree\b", b):
            return "up"
        return None
    if re.search(r"\bfree\b.{0,25}\bfor\s+$", b):
        return "up"
    if re.search(r"\ballow\s+$", b):
        return "down"
    return "any"


def policy_values(text: str) -> tuple[list[PolicyValue], list[Unreadable]]:
    """The prices, ages and counts written in digits in `text`, each with the direction a
    change must take to falsify it; and the numbers left alone, each with why."""
    values: list[PolicyValue] = []
    unreadable: list[Unreadable] = []
    for m in mentions(text):
        before, after = text[: m.start], text[m.end :]
        kind: ValueKind
        if m.kind in ("date", "time"):
            continue
        if m.kind == "word":
            # A count written as a word ("valid for four years", "two bicycles"): plural units
            # only, so a new value never needs the unit's number changed.
            unit_match = _UNIT.match(after)
            value = Decimal(m.atom)
            if (
                unit_match is None
                or not unit_match.group("unit").endswith(("s", "children"))
                or m.raw.lower() not in COUNT_WORDS
                or value < 2
            ):
                continue
            unit = unit_match.group("unit")
            kind = "count" if unit in ("rides", "trips", "children", "bicycles") else "period"
            direction = _direction(before, after)
            if direction is None:
                unreadable.append(Unreadable(m, "a bound whose direction the words do not give"))
                continue
            values.append(PolicyValue(m, kind, direction, value, unit))
            continue
        if m.kind == "percent":
            unreadable.append(Unreadable(m, "a percentage, not a price, age or count"))
            continue
        if m.kind == "price":
            direction = _direction(before, after)
            if direction is None:
                unreadable.append(Unreadable(m, "a bound whose direction the words do not give"))
                continue
            unit = "cents" if m.raw.endswith("cents") else "$"
            value = Decimal(m.raw.split()[0]) if unit == "cents" else Decimal(m.atom)
            values.append(PolicyValue(m, "price", direction, value, unit))
            continue
        # A bare number: what is it?
        if re.search(rf"[A-Za-z][-{NDASH}]?$", before):
            unreadable.append(Unreadable(m, "part of a name (a form or grade, like RF-2 or K-12)"))
            continue
        if re.match(r"^-(?:day|ride|year|month|week)\b", after):
            unreadable.append(Unreadable(m, "part of a product or person name (31-day pass)"))
            continue
        if re.match(r"^\s+(?:[A-Z][a-z]+\s+)*(?:Street|St\.|Way|Boulevard|Avenue|Road)\b", after):
            unreadable.append(Unreadable(m, "a street address"))
            continue
        if re.match(rf"^[-{NDASH}]\s*(?:and\s+\d+-)?year-olds?\b|^[-{NDASH}]\s+and\b", after):
            unreadable.append(Unreadable(m, "a rider's own age"))
            continue
        if "." in m.raw or len(m.raw) >= 4:
            unreadable.append(Unreadable(m, "not a price, age or count"))
            continue
        unit_match = _UNIT.match(after)
        unit = ""
        if unit_match and (_AGE_AFTER.match(after) or _AGE_BEFORE.search(before[-30:])):
            unreadable.append(Unreadable(m, "a number whose kind the words do not give"))
            continue
        if unit_match:
            unit = unit_match.group("unit")
            kind = (
                "period"
                if re.match(r"days?|months?|years?|minutes?|hours?|weeks?", unit)
                else "count"
            )
        elif (
            _AGE_AFTER.match(after)
            or _AGE_BEFORE.search(before[-30:])
            or re.search(r"\bat(?: age)?\s+$", before[-10:])
        ):
            kind = "age"
        elif _RANGE_BEFORE.search(before[-20:]):
            start = _RANGE_BEFORE.search(before[-20:])
            assert start is not None
            # The end of a range is what its start is.
            head = before[: len(before) - len(before[-20:]) + start.start()]
            kind = "age" if _AGE_BEFORE.search(head[-30:]) else "count"
            if kind == "count":
                unreadable.append(Unreadable(m, "a number whose kind the words do not give"))
                continue
        else:
            unreadable.append(Unreadable(m, "a number whose kind the words do not give"))
            continue
        direction = _direction(before, after)
        if direction is None:
            unreadable.append(Unreadable(m, "a bound whose direction the words do not give"))
            continue
        values.append(PolicyValue(m, kind, direction, Decimal(m.raw), unit))
    return values, unreadable


def format_value(original: PolicyValue, new: Decimal) -> str:
    """`new` written the way the original value was written."""
    raw = original.mention.raw
    if original.mention.kind == "word":
        word = COUNT_WORDS[int(new)]
        return word.capitalize() if raw[0].isupper() else word
    if original.unit == "cents":
        return f"{int(new)} cents"
    if original.kind == "price":
        cents = "." in raw
        return f"${new:.2f}" if cents else f"${int(new)}"
    return str(int(new))
