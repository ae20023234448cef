"""Reading an answer for the metamorphic suite: its sentences, its numbers, its dates, its words.

Every function here is pure and says "I cannot tell" (None, or no candidate) instead of
guessing: a sentence boundary that could be an abbreviation, a number whose kind the words
around it do not give, a bound whose direction is unclear.
"""

import datetime
import functools
import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

MONTHS = [
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
]  # fmt: skip
_MONTH = "|".join(MONTHS)
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

# Typographic characters the answers use, spelled out so the source stays plain ASCII.
_RSQUO = "\u2019"  # right single quotation mark
_RDQUO = "\u201d"  # right double quotation mark
_NDASH = "\u2013"  # en dash
_MDASH = "\u2014"  # em dash
_CLOSERS = f'"{_RDQUO}{_RSQUO})]'

# ---------------------------------------------------------------------------------------------
# Sentences

# Periods that belong to an abbreviation, not to the end of a sentence (the labeling guide
# keeps "p.m." whole when it ends a claim).
_ABBREVIATIONS = ("a.m.", "p.m.", "e.g.", "i.e.", "etc.", "vs.", "St.", "Dr.", "Mr.", "Ms.", "Mrs.")
_END = re.compile(rf"[.!?]+(?=[{re.escape(_CLOSERS)}]*(?:\s|$))")


@dataclass(frozen=True)
class Sentence:
    start: int
    end: int
    certain: bool
    """False when one of its boundaries could also be an abbreviation's period."""


def _line_sentences(text: str, offset: int) -> list[Sentence]:
    """The sentences of one line (already stripped)."""
    found: list[Sentence] = []
    start, certain = 0, True
    for match in _END.finditer(text):
        stop = match.end()
        while stop < len(text) and text[stop] in _CLOSERS:
            stop += 1
        rest = text[stop:].lstrip()
        word_before = text[: match.end()].split()[-1]
        abbreviation = match.group() == "." and word_before.endswith(_ABBREVIATIONS)
        if not rest:
            boundary = True
        elif rest[0].islower():
            # "… 9:30 a.m. to 3:00 p.m." goes on; a lower-case word after a plain period is a
            # sentence we cannot delimit.
            boundary = False
            certain = certain and abbreviation
        elif abbreviation:
            next_word = re.match(rf"[\w{_RSQUO}']+", rest)
            named = next_word is not None and next_word.group() in (*_WEEKDAYS, *MONTHS)
            # "2:00 p.m. Outside those hours" ends a sentence; "9 a.m. Monday" may not, and
            # "St. Louis" does not.
            boundary = not named and word_before.endswith(("a.m.", "p.m."))
            certain = certain and boundary
        else:
            boundary = True
        if boundary:
            found.append(Sentence(offset + start, offset + stop, certain))
            start, certain = len(text) - len(rest), True
    if text[start:].strip():
        found.append(Sentence(offset + start, offset + len(text), certain))
    return found


def sentences(text: str) -> list[Sentence]:
    """The sentences of `text`, line by line (a line break always ends a sentence)."""
    found: list[Sentence] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        lead = len(body) - len(body.lstrip())
        found.extend(_line_sentences(body.strip(), offset + lead))
        offset += len(line)
    return found


def sentence_at(text: str, position: int) -> Sentence | None:
    """The sentence that holds character `position`, or None if it cannot be delimited."""
    for sentence in sentences(text):
        if sentence.start <= position < sentence.end:
            return sentence if sentence.certain else None
    return None


_LEADING = re.compile(
    rf"^(?:(?:Yes|No|Not quite)\s*(?:{_MDASH}|{_NDASH}|,|:)\s+|(?:Also|And|But|So|Plus|Then),?\s+)"
)


def claim_text(text: str, sentence: Sentence) -> str:
    """The claim span of a sentence, as the labeling guide cuts it: without sentence-final
    punctuation (an abbreviation such as "p.m." keeps its period) and without a leading
    "Yes —", "No," or conjunction. Always a verbatim part of `text`."""
    span = text[sentence.start : sentence.end].strip()
    if not span.endswith(_ABBREVIATIONS):
        span = span.rstrip(".!?")
    lead = _LEADING.match(span)
    if lead and span[lead.end() :].strip():
        span = span[lead.end() :]
    return span


# ---------------------------------------------------------------------------------------------
# Numbers and dates

Kind = Literal["date", "time", "price", "percent", "number", "word"]

_COUNT_WORDS = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
]  # fmt: skip
_NUMBER_WORDS = {
    **{word: n for n, word in enumerate(_COUNT_WORDS) if n},
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "ninety": 90, "hundred": 100,
    "dozen": 12, "a dollar": 1,
}  # fmt: skip

_TOKEN = re.compile(
    rf"(?P<iso>\b\d{{4}}-\d{{2}}-\d{{2}}\b)"
    rf"|(?P<long>\b(?:{_MONTH}) \d{{1,2}}, \d{{4}}\b)"
    rf"|(?P<monthday>\b(?:{_MONTH}) \d{{1,2}}\b)"
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
    rf"(?P<date>\d{{4}}-\d{{2}}-\d{{2}}\b|(?:{_MONTH}) \d{{1,2}}, \d{{4}}\b)"
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


# ---------------------------------------------------------------------------------------------
# The policy values an answer states, with the direction a change must go to make it false

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
_RANGE_AFTER = re.compile(rf"^\s*(?:through|to|{_NDASH}|-)\s*\d")
_RANGE_BEFORE = re.compile(rf"(\d+)\s*(?:through|to|{_NDASH}|-)\s*$")


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
                or m.raw.lower() not in _COUNT_WORDS
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
        if re.search(rf"[A-Za-z][-{_NDASH}]?$", before):
            unreadable.append(Unreadable(m, "part of a name (a form or grade, like RF-2 or K-12)"))
            continue
        if re.match(r"^-(?:day|ride|year|month|week)\b", after):
            unreadable.append(Unreadable(m, "part of a product or person name (31-day pass)"))
            continue
        if re.match(r"^\s+(?:[A-Z][a-z]+\s+)*(?:Street|St\.|Way|Boulevard|Avenue|Road)\b", after):
            unreadable.append(Unreadable(m, "a street address"))
            continue
        if re.match(rf"^[-{_NDASH}]\s*(?:and\s+\d+-)?year-olds?\b|^[-{_NDASH}]\s+and\b", after):
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
        word = _COUNT_WORDS[int(new)]
        return word.capitalize() if raw[0].isupper() else word
    if original.unit == "cents":
        return f"{int(new)} cents"
    if original.kind == "price":
        cents = "." in raw
        return f"${new:.2f}" if cents else f"${int(new)}"
    return str(int(new))


# ---------------------------------------------------------------------------------------------
# Text addressed to the judge

# The labeling guide never labels text addressed to the judge, so no edit may land in it; and
# a corpus section holding such text is no clean distractor.
_TO_JUDGE = re.compile(
    r"[<>{}]|###|\b(?:judge|grader|auditor|system|verdict|grounded|instructions?|reviewers?)\b"
    r"|^\s*(?:user|assistant)\s*:",
    re.IGNORECASE | re.MULTILINE,
)


def addressed_to_judge(text: str) -> bool:
    """Whether the text looks addressed to the judge (fake instructions, verdict JSON, role
    markers, tags)."""
    return bool(_TO_JUDGE.search(text))


# ---------------------------------------------------------------------------------------------
# Words

_STOPWORDS = frozenset(
    [
        "about", "after", "again", "also", "always", "among", "another", "around", "because",
        "been", "before", "being", "below", "between", "both", "cannot", "could", "does",
        "doing", "done", "down", "during", "each", "either", "else", "even", "ever", "every",
        "from", "further", "have", "having", "here", "into", "itself", "just", "more", "most",
        "much", "must", "neither", "never", "none", "only", "other", "over", "same", "should",
        "since", "some", "such", "than", "that", "their", "them", "then", "there", "these",
        "they", "this", "those", "though", "through", "until", "upon", "very", "what", "when",
        "where", "whether", "which", "while", "will", "with", "within", "without", "would",
        "your", "yours",
    ]
)  # fmt: skip


def _stem(word: str) -> str:
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + keep
    return word


def content_words(*texts: str) -> frozenset[str]:
    """The texts' content words (four letters or more, not function words), crudely stemmed,
    so that "renews", "renewed" and "renewing" are one word."""
    words: set[str] = set()
    for token in re.findall(rf"[A-Za-z][A-Za-z{_RSQUO}']*", "\n".join(texts)):
        word = token.lower().replace(_RSQUO, "'")
        word = re.sub(r"'s$", "", word)
        if len(word) < 4 or word in _STOPWORDS or "'" in word:
            continue
        words.add(_stem(word))
    return frozenset(words)
