"""Claim spans as character ranges of the answer, and their overlap (RAGTruth's span scores).

A span is a half-open range `[start, end)` of the answer. Annotators select spans, so theirs
come with offsets; a judge or a gold label gives a claim as text, which `locate` finds in
the answer. Overlap is counted in characters: a span that covers the whole answer overlaps
every gold span, but most of its characters overlap nothing, so its precision is low.
"""

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from dataclasses import dataclass

from farejudge.core.escaping import escape, escaped_offsets, unescape

Range = tuple[int, int]

# What a quotation may drop at its edges: spacing, quotes, sentence punctuation.
_EDGE = " \t\n\"'.,;:!?()[]\u201c\u201d\u2018\u2019"


def locate(quote: str, answer: str, *, escaped: bool = True) -> Range | None:
    """Where `quote` stands in `answer`: verbatim, or but for case, spacing and edge punctuation.

    A judge read the answer escaped inside its tag (`escaped`), so its quote is looked for
    there first and mapped back: `&lt;` is the answer's `<`, and `&amp;lt;` its literal `&lt;`;
    then as the answer's own text (a judge that undid the escaping), then loosely. A gold
    claim (`escaped=False`) is the answer's own text. The first occurrence wins; None when
    the quote is not a quotation of the answer.
    """
    if not quote:
        return None
    whole, cut = _in_escaped(quote, answer) if escaped else (None, None)
    if whole is not None:
        return whole
    start = answer.find(quote)
    if start >= 0:
        return start, start + len(quote)
    return cut or _loosely(unescape(quote) if escaped else quote, answer)


def _in_escaped(quote: str, answer: str) -> tuple[Range | None, Range | None]:
    """The quote's first occurrence in the escaped answer, as a range of the answer's
    characters: one that begins and ends between characters, and else one that cuts an entity
    (`lt;` is in `&lt;`), spanning the characters it cuts."""
    escaped, offsets = escape(answer), escaped_offsets(answer)
    boundaries = {offset: i for i, offset in enumerate(offsets)}
    cut: Range | None = None
    at = escaped.find(quote)
    while at >= 0:
        end = at + len(quote)
        if at in boundaries and end in boundaries:
            return (boundaries[at], boundaries[end]), None
        if cut is None:
            cut = bisect_right(offsets, at) - 1, bisect_left(offsets, end)
        at = escaped.find(quote, at + 1)
    return None, cut


def _loosely(text: str, answer: str) -> Range | None:
    """Where the words of `text` stand in `answer`, whatever the case and spacing between them."""
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


def quoted_ranges(
    quotes: Iterable[str], answer: str, *, escaped: bool = True
) -> tuple[list[Range], int]:
    """The ranges of the quotes found in the answer (read `escaped`, as `locate` says); and the
    characters of those not found, which are predicted characters that can overlap nothing."""
    found: list[Range] = []
    unlocated = 0
    for quote in quotes:
        where = locate(quote, answer, escaped=escaped)
        if where is None:
            unlocated += len(quote)
        else:
            found.append(where)
    return found, unlocated


def quote_overlap(predicted: Iterable[str], gold: Iterable[str], answer: str) -> SpanOverlap:
    """The span overlap of two sets of quotations of `answer`, located there: a judge's,
    quoted from the answer as it read it (escaped), and gold's, the answer's own text.

    A quote not found in the answer keeps its characters on its side, overlapping nothing: a
    judge's invented claim costs it precision, and a gold claim nobody could find is missed.
    """
    mine, mine_unlocated = quoted_ranges(predicted, answer)
    theirs, theirs_unlocated = quoted_ranges(gold, answer, escaped=False)
    found = span_overlap(mine, theirs)
    return SpanOverlap(
        predicted=found.predicted + mine_unlocated,
        gold=found.gold + theirs_unlocated,
        overlap=found.overlap,
    )
