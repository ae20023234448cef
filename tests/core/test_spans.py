"""Claim spans located in the answer, and their character overlap."""

import pytest

from farejudge.core.spans import (
    Range,
    SpanOverlap,
    characters,
    locate,
    quote_overlap,
    quoted_ranges,
    span_overlap,
)

ANSWER = "It costs $25 a month.\nAges < 6 ride free; it costs $25 online too."


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        # Verbatim: the first occurrence wins.
        ("costs $25", (3, 12)),
        ("It costs $25 a month.", (0, 21)),
        ("osts $2", (4, 11)),
        # Case and spacing as the judge happened to write them.
        ("IT COSTS $25", (0, 12)),
        ("costs   $25 a\tmonth", (3, 20)),
        ("month. Ages", (15, 26)),
        # Quotes and sentence punctuation at the edges are not part of the span.
        ('"costs $25."', (3, 12)),
        ("\u201cIt costs $25 a month\u201d", (0, 20)),
        ("(ride free;)", (31, 40)),
        # The judge saw the answer escaped inside its tag.
        ("Ages &lt; 6 ride free", (22, 40)),
        ("ages &lt;  6", (22, 30)),
        # Not a quotation of the answer.
        ("costs $30", None),
        ("costs $25 a week", None),
        ("Ages <= 6", None),
        ("", None),
        ('"..."', None),
    ],
)
def test_locate(quote: str, expected: Range | None) -> None:
    assert locate(quote, ANSWER) == expected


def test_located_span_reads_as_the_quote() -> None:
    where = locate("  IT costs $25 ONLINE ", ANSWER)
    assert where is not None and ANSWER[where[0] : where[1]] == "it costs $25 online"


def test_characters_count_overlapping_ranges_once() -> None:
    assert characters([(0, 3), (2, 5), (8, 8)]) == {0, 1, 2, 3, 4}


@pytest.mark.parametrize(
    ("predicted", "gold", "expected"),
    [
        ([(0, 10)], [(5, 15)], SpanOverlap(predicted=10, gold=10, overlap=5)),
        ([(0, 10), (5, 12)], [(0, 3)], SpanOverlap(predicted=12, gold=3, overlap=3)),
        ([(0, 4)], [(4, 9)], SpanOverlap(predicted=4, gold=5, overlap=0)),
        ([(0, 60)], [(3, 12), (50, 55)], SpanOverlap(predicted=60, gold=14, overlap=14)),
        ([], [(3, 12)], SpanOverlap(predicted=0, gold=9, overlap=0)),
        ([], [], SpanOverlap(predicted=0, gold=0, overlap=0)),
    ],
)
def test_span_overlap(predicted: list[Range], gold: list[Range], expected: SpanOverlap) -> None:
    assert span_overlap(predicted, gold) == expected


def test_an_unlocated_quote_keeps_its_length() -> None:
    ranges, unlocated = quoted_ranges(["costs $25", "free on Sundays", "ride free"], ANSWER)
    assert ranges == [(3, 12), (31, 40)]
    assert unlocated == len("free on Sundays")


def test_quoting_the_whole_answer_overlaps_every_gold_span_at_low_precision() -> None:
    whole = quote_overlap([ANSWER], ["costs $25 a month", "ride free"], ANSWER)
    assert whole == SpanOverlap(predicted=len(ANSWER), gold=17 + 9, overlap=17 + 9)
    exact = quote_overlap(["costs $25 a month", "ride free"], ["costs $25 a month"], ANSWER)
    assert exact == SpanOverlap(predicted=26, gold=17, overlap=17)


def test_an_invented_quote_is_predicted_characters_that_overlap_nothing() -> None:
    assert quote_overlap(["costs $30"], ["costs $25"], ANSWER) == SpanOverlap(9, 9, 0)
