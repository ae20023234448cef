from hypothesis import given
from hypothesis import strategies as st

from farejudge.core.common_prefix import common_prefix_length


def test_common_prefix_length() -> None:
    assert common_prefix_length(["abcd", "abxy", "abc"]) == 2
    assert common_prefix_length(["ab", "abc"]) == 2
    assert common_prefix_length(["same", "same"]) == 4
    assert common_prefix_length(["x", "y"]) == 0
    assert common_prefix_length([]) == 0
    assert common_prefix_length(["", "a"]) == 0


@given(st.lists(st.text(alphabet="ab", max_size=10), min_size=1, max_size=6))
def test_common_prefix_length_is_where_any_two_texts_first_differ(texts: list[str]) -> None:
    shared = common_prefix_length(texts)
    assert all(text[:shared] == texts[0][:shared] for text in texts)
    assert any(len(text) == shared for text in texts) or len({text[shared] for text in texts}) > 1
