"""How long a beginning texts share: what a KV cache that holds one of them can reuse."""

from collections.abc import Sequence

__all__ = ["common_prefix_length"]


def common_prefix_length(texts: Sequence[str]) -> int:
    """How many leading characters all of `texts` share (0 for none)."""
    if not texts:
        return 0
    # The lexicographically least and greatest text differ first where any two do; halving
    # on slices compares in C, where a character loop would cost seconds on thousands of cases.
    low, high = min(texts), max(texts)
    shared, unsure = 0, min(len(low), len(high))
    while shared < unsure:
        middle = (shared + unsure + 1) // 2
        if low[:middle] == high[:middle]:
            shared = middle
        else:
            unsure = middle - 1
    return shared
