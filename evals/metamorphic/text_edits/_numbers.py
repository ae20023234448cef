"""The numbers and dates in a text, each with its value canonical across formats, and the fetch
dates an answer states."""

import datetime
import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from farejudge.evals.metamorphic.text_edits._characters import MONTH, MONTHS

Kind = Literal["date", "time", "price", "percent", "number", "word"]

COUNT_WORDS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
]  # fmt: skip
_NUMBER_WORDS = {
    **{word: n for n, word in enumerate(COUNT_WORDS) if n},
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
    "dozen": 12, "a dollar": 1,
}  # fmt: skip

_TOKEN = re.compile(
    rf"(?P<iso>\b\d{{4}}-\d{{2}}-\d{{2}}\b)"
    rf"|(?P<long>\b(?:{MONTH}) \d{{1,2}}, \d{{4}}\b)"
    rf"|(?P<monthday>\b(?:{MONTH}) \d{{1,2}}\b)"
    r"|(?P<time>\b\d{1,2}:\d{2}(?:\s?[ap]\.m\.)?|\b\d{1,2}\s?[ap]\.m\.)"
    r"|(?P<price>\$\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?\b)"
    r"|(?P<cents>\b\d{1,2} cents\b)"
    r"|(?P<percent>\b\d+(?:\.\d+)?%)"
    r"|(?P<number>\b\d+(?:\.\d+)?\b)"
    rf"|(?P<word>\b(?:{'|'.join(sorted(_NUMBER_WORDS, key=len, reverse=True))})\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Mention:
    start: int
    end: int
    raw: str
    kind: Kind
    atom: str
    """The value, canonical across formats: `$1.00`, `1` and `one` are all "1"; a date is
    `date:YYYY-MM-DD`; a time `time:HH:MM`."""


def _decimal_atom(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def _long_date(raw: str) -> datetime.date:
    month, day, year = re.fullmatch(r"(\w+) (\d{1,2}), (\d{4})", raw).groups()  # type: ignore[union-attr]
    return datetime.date(int(year), MONTHS.index(month.capitalize()) + 1, int(day))


def format_long_date(day: datetime.date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


def _time_atom(raw: str) -> str:
    match = re.match(r"(\d{1,2})(?::(\d{2}))?\s?([ap])?", raw)
    assert match is not None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    half = (match.group(3) or "").lower()
    if half == "p" and hour < 12:
        hour += 12
    if half == "a" and hour == 12:
        hour = 0
    return f"time:{hour:02d}:{minute:02d}"


def mentions(text: str) -> tuple[Mention, ...]:
    """Every number, price, percentage, time and date in `text`, in order, none overlapping."""
    return _mentions(text)


@functools.lru_cache(maxsize=4096)
def _mentions(text: str) -> tuple[Mention, ...]:
    found: list[Mention] = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        raw = match.group()
        atom: str
        if kind == "iso":
            try:
                atom = f"date:{datetime.date.fromisoformat(raw).isoformat()}"
            except ValueError:
                continue
            found.append(Mention(match.start(), match.end(), raw, "date", atom))
        elif kind == "long":
            try:
                atom = f"date:{_long_date(raw).isoformat()}"
            except ValueError:
                continue
            found.append(Mention(match.start(), match.end(), raw, "date", atom))
        elif kind == "monthday":
            month, day = raw.split()
            atom = f"monthday:{MONTHS.index(month.capitalize()) + 1:02d}-{int(day):02d}"
            found.append(Mention(match.start(), match.end(), raw, "date", atom))
        elif kind == "time":
            found.append(Mention(match.start(), match.end(), raw, "time", _time_atom(raw)))
        elif kind == "price":
            value = Decimal(raw.lstrip("$").replace(",", ""))
            found.append(Mention(match.start(), match.end(), raw, "price", _decimal_atom(value)))
        elif kind == "cents":
            value = Decimal(raw.split()[0]) / 100
            found.append(Mention(match.start(), match.end(), raw, "price", _decimal_atom(value)))
        elif kind == "percent":
            value = Decimal(raw.rstrip("%"))
            found.append(Mention(match.start(), match.end(), raw, "percent", _decimal_atom(value)))
        elif kind == "number":
            value = Decimal(raw)
            found.append(Mention(match.start(), match.end(), raw, "number", _decimal_atom(value)))
        else:
            value = Decimal(_NUMBER_WORDS[raw.lower()])
            found.append(Mention(match.start(), match.end(), raw, "word", _decimal_atom(value)))
    return tuple(found)


def atoms(*texts: str) -> frozenset[str]:
    """The canonical values of every number and date in the texts."""
    return frozenset(m.atom for text in texts for m in _mentions(text))


def arithmetic_closure(values: frozenset[str]) -> frozenset[str]:
    """Values exact arithmetic on two numbers could give (sum, difference, half, double): a
    changed value must not be one of these, or the passages could back it by arithmetic."""
    numbers = sorted({Decimal(v) for v in values if re.fullmatch(r"\d+(?:\.\d+)?", v)})
    derived: set[Decimal] = set()
    for a in numbers:
        derived.update((a / 2, a * 2))
        for b in numbers:
            derived.update((a + b, abs(a - b)))
    return frozenset(_decimal_atom(d) for d in derived)


# ---------------------------------------------------------------------------------------------
# Fetch dates stated in an answer

_FETCH = re.compile(
    rf"\b(?:fetched|retrieved|as of)(?: on)?\s+"
    rf"(?P<date>\d{{4}}-\d{{2}}-\d{{2}}\b|(?:{MONTH}) \d{{1,2}}, \d{{4}}\b)"
)


@dataclass(frozen=True)
class StatedDate:
    start: int
    end: int
    raw: str
    day: datetime.date
    iso: bool
    """True for `2026-08-01`, False for `August 1, 2026`."""

    def formatted(self, day: datetime.date) -> str:
        return day.isoformat() if self.iso else format_long_date(day)


def stated_fetch_dates(answer: str) -> list[StatedDate]:
    """The dates an answer gives as its fetch / snapshot date ("fetched 2026-08-01",
    "as fetched on 2026-06-20", "fetched August 5, 2026", "current as of August 20, 2026")."""
    found: list[StatedDate] = []
    for match in _FETCH.finditer(answer):
        raw = match.group("date")
        iso = raw[0].isdigit()
        try:
            day = datetime.date.fromisoformat(raw) if iso else _long_date(raw)
        except ValueError:
            continue
        found.append(StatedDate(match.start("date"), match.end("date"), raw, day, iso))
    return found
