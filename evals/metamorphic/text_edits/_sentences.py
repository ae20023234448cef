"""An answer's sentences, and the claim span of one, as the labeling guide cuts it."""

import re
from dataclasses import dataclass

from farejudge.evals.metamorphic.text_edits._characters import (
    CLOSERS,
    MDASH,
    MONTHS,
    NDASH,
    RSQUO,
    WEEKDAYS,
)

# Periods that belong to an abbreviation, not to the end of a sentence (the labeling guide
# keeps "p.m." whole when it ends a claim).
_ABBREVIATIONS = ("a.m.", "p.m.", "e.g.", "i.e.", "etc.", "vs.", "St.", "Dr.", "Mr.", "Ms.", "Mrs.")
_END = re.compile(rf"[.!?]+(?=[{re.escape(CLOSERS)}]*(?:\s|$))")


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
        while stop < len(text) and text[stop] in CLOSERS:
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
            next_word = re.match(rf"[\w{RSQUO}']+", rest)
            named = next_word is not None and next_word.group() in (*WEEKDAYS, *MONTHS)
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
    rf"^(?:(?:Yes|No|Not quite)\s*(?:{MDASH}|{NDASH}|,|:)\s+|(?:Also|And|But|So|Plus|Then),?\s+)"
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
