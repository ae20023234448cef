"""Claim spans as character ranges of the answer, and their overlap (RAGTruth's span scores).

A span is a half-open range `[start, end)` of the answer. Annotators select spans, so theirs
come with offsets; a judge or a gold label gives a claim as text, which `locate` finds in
the answer. Overlap is counted in characters: a span that covers the whole answer overlaps
every gold span, but most of its characters overlap nothing, so its precision is low.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from farejudge.core.escaping import unescape

Range = tuple[int, int]

# What a quotation may drop at its edges: spacing, quotes, sentence punctuation.
_EDGE = " \t\n\"'.,;:!?()[]\u201c\u201d\u2018\u2019"


def locate(quote: str, answer: str) -> Range | None:
    """Where `quote` stands in `answer`: verbatim, or but for case, spacing and edge punctuation.

    The first occurrence wins; None when the quote is not a quotation of the answer.
    """
    text = unescape(quote)
    start = answer.find(text)
    if text and start >= 0:
        return start, start + len(text)
    words = text.strip(_EDGE).split()
    if not words:
        return None
    found = re.search(r"\s+".join(map(re.escape, words)), answer, flags=re.IGNORECASE)
    return (found.start(), found.end()) if found else None


def characters(ranges: Iterable[Range]) -> set[int]:
    """The answer's character positions the ranges cover, each counted once."""
    return {i for start, end in ranges for i in range(start, end)}


@dataclass(frozen=True)
class SpanOverlap:
    """Character counts behind span precision (overlap / predicted) and recall (overlap / gold)."""

    predicted: int
    gold: int
    overlap: int


def span_overlap(predicted: Iterable[Range], gold: Iterable[Range]) -> SpanOverlap:
    """The characters each side's ranges cover, and those both cover; overlapping ranges of one
    side count their shared characters once."""
    mine, theirs = characters(predicted), characters(gold)
    return SpanOverlap(predicted=len(mine), gold=len(theirs), overlap=len(mine & theirs))


def quoted_ranges(quotes: Iterable[str], answer: str) -> tuple[list[Range], int]:
    """The ranges of the quotes found in the answer; and the characters of those not found,
    which are predicted characters that can overlap nothing."""
    found: list[Range] = []
    unlocated = 0
    for quote in quotes:
        where = locate(quote, answer)
        if where is None:
            unlocated += len(quote)
        else:
            found.append(where)
    return found, unlocated


def quote_overlap(predicted: Iterable[str], gold: Iterable[str], answer: str) -> SpanOverlap:
    """The span overlap of two sets of quotations of `answer`, located there.

    A quote not found in the answer keeps its characters on its side, overlapping nothing: a
    judge's invented claim costs it precision, and a gold claim nobody could find is missed.
    """
    mine, mine_unlocated = quoted_ranges(predicted, answer)
    theirs, theirs_unlocated = quoted_ranges(gold, answer)
    found = span_overlap(mine, theirs)
    return SpanOverlap(
        predicted=found.predicted + mine_unlocated,
        gold=found.gold + theirs_unlocated,
        overlap=found.overlap,
    )
