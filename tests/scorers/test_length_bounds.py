"""Over-long strings in a verdict are flagged against the verdict's bounds, never cut."""

from farejudge.scorers.length_bounds import (
    CLAIM_MAX_CHARS,
    REASONING_MAX_CHARS,
    OverLong,
    over_long,
    over_long_note,
)


def test_strings_within_the_bounds_are_not_flagged() -> None:
    claims = ["a" * CLAIM_MAX_CHARS, "short"]
    assert over_long(claims, "r" * REASONING_MAX_CHARS) == []
    assert over_long_note([]) == ""


def test_each_over_long_string_is_named_with_its_length_and_bound() -> None:
    claims = ["fine", "c" * (CLAIM_MAX_CHARS + 1)]
    found = over_long(claims, "r" * (REASONING_MAX_CHARS + 50))
    assert found == [
        OverLong("unsupported_claims[1]", CLAIM_MAX_CHARS + 1, CLAIM_MAX_CHARS),
        OverLong("reasoning", REASONING_MAX_CHARS + 50, REASONING_MAX_CHARS),
    ]
    assert over_long_note(found) == (
        f"Over the verdict's length bounds (scored as written, not cut): unsupported_claims[1] "
        f"has {CLAIM_MAX_CHARS + 1} characters (bound {CLAIM_MAX_CHARS}); reasoning has "
        f"{REASONING_MAX_CHARS + 50} characters (bound {REASONING_MAX_CHARS})."
    )


def test_length_is_counted_in_characters_as_json_schema_counts_them() -> None:
    # maxLength counts code points: a claim of accented letters is as long as its letters.
    assert over_long(["é" * CLAIM_MAX_CHARS], "") == []
    assert over_long(["€" * (CLAIM_MAX_CHARS + 1)], "")[0].chars == CLAIM_MAX_CHARS + 1
