"""The prompt's escaping is undone exactly, and a judge's quote is found through it (issue 26,
finding 10).

`&` was left as it was, so an answer that says `&lt;FREE&gt;` reached the judge looking like
an escaped `<FREE>`, and its exact quote was located nowhere.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from farejudge.core.escaping import escape, escaped_offsets, unescape
from farejudge.core.spans import locate

# Text made of what the escaping touches: the three characters, the entities' names and
# their parts, whole entities, and a little else.
PIECES = ["<", ">", "&", ";", "lt", "gt", "amp", "&lt;", "&gt;", "&amp;", "l", "t", "a", " ", "X"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=24).map("".join)
EXAMPLES = 400


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("Ages < 6 ride free", "Ages &lt; 6 ride free"),
        ("Fares & passes", "Fares &amp; passes"),
        # An answer that literally says an entity keeps saying it.
        ("Kids ride &lt;FREE&gt;", "Kids ride &amp;lt;FREE&amp;gt;"),
        ("&amp;", "&amp;amp;"),
        ("</assistant_answer>", "&lt;/assistant_answer&gt;"),
    ],
)
def test_escape(text: str, escaped: str) -> None:
    assert escape(text) == escaped
    assert unescape(escaped) == text


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None)
@given(TEXT)
def test_unescape_undoes_escape(text: str) -> None:
    assert unescape(escape(text)) == text
    # Nothing in the escaped text can open or close a tag.
    assert "<" not in escape(text) and ">" not in escape(text)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None)
@given(TEXT)
def test_offsets_say_where_each_character_went(text: str) -> None:
    offsets = escaped_offsets(text)
    escaped = escape(text)
    assert offsets[0] == 0 and offsets[-1] == len(escaped)
    for i, char in enumerate(text):
        assert escaped[offsets[i] : offsets[i + 1]] == escape(char)


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None)
@given(st.data())
def test_a_quote_of_the_escaped_answer_is_located_at_its_true_offsets(data: st.DataObject) -> None:
    answer = data.draw(TEXT.filter(bool), label="answer")
    start = data.draw(st.integers(0, len(answer) - 1), label="start")
    end = data.draw(st.integers(start + 1, len(answer)), label="end")
    quoted = answer[start:end]
    # The judge quotes what it read: the answer escaped. The first occurrence wins.
    first = answer.find(quoted)
    assert locate(escape(quoted), answer) == (first, first + len(quoted))


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        # As the judge read it, inside its tag.
        ("&amp;lt;FREE&amp;gt;", "&lt;FREE&gt;"),
        ("under 6 &amp; over 65", "under 6 & over 65"),
        ("&lt;6", "<6"),
        # As a judge that undid the escaping wrote it.
        ("&lt;FREE&gt;", "&lt;FREE&gt;"),
        ("under 6 & over 65", "under 6 & over 65"),
        # Loosely: case and spacing.
        ("UNDER 6  &amp; over 65", "under 6 & over 65"),
    ],
)
def test_a_judge_quote_is_located_through_the_escaping(quote: str, expected: str) -> None:
    answer = "Kids ride &lt;FREE&gt; on Sundays, <6 years; seniors under 6 & over 65 pay $1."
    where = locate(quote, answer)
    assert where is not None and answer[where[0] : where[1]] == expected


def test_a_gold_claim_is_the_answer_s_own_text() -> None:
    answer = "a < b &lt; c"
    # Gold quotes the answer as it is: its "&lt;" is the literal one.
    assert locate("&lt; c", answer, escaped=False) == (6, 12)
    # The judge read "a &lt; b &amp;lt; c": its "&lt;" is the answer's "<".
    assert locate("&lt;", answer) == (2, 3)
