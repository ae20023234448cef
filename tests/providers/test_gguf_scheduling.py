"""Which waiting call a free context runs next (providers/gguf/scheduling.py)."""

from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from farejudge.core.common_prefix import common_prefix_length
from farejudge.providers.gguf.scheduling import (
    WINDOW_PER_CONTEXT,
    Slot,
    Waiting,
    assign,
    most_passes,
)

INSTRUCTIONS = "You judge whether the answer is grounded in the passages. " * 4


def slot(index: int, prompt: str = "", free: bool = True, loaded: bool = True) -> Slot:
    return Slot(index, prompt, free=free, loaded=loaded)


def calls(*prompts: str | None) -> list[Waiting]:
    return [Waiting(prompt) for prompt in prompts]


@pytest.mark.parametrize(
    ("slots", "waiting", "expected"),
    [
        pytest.param([slot(0, free=False)], calls("a"), None, id="no free context"),
        pytest.param([slot(0)], [], None, id="no waiting call"),
        pytest.param(
            [slot(0, loaded=False), slot(1, loaded=False)],
            calls("a"),
            (0, 0),
            id="nothing loaded: the lowest index",
        ),
        pytest.param(
            [slot(0, loaded=False), slot(1, loaded=True)],
            calls("a"),
            (1, 0),
            id="a loaded context before loading another",
        ),
        pytest.param(
            [slot(0, "rail fares: 1")],
            calls("bus fares: 1", "rail fares: 2"),
            (0, 1),
            id="a later call that shares more with the cache goes first",
        ),
        pytest.param(
            [slot(0, "bus fares: 1"), slot(1, "rail fares: 1")],
            calls("rail fares: 2"),
            (1, 0),
            id="two free contexts: the one that holds the beginning",
        ),
        pytest.param(
            [slot(0, "rail fares: 1"), slot(1, "bus fares: 1", free=False)],
            calls("bus fares: 2", "bus fares: 3"),
            (0, 1),
            id="calls that belong to a busy context's stretch: a new one at the newest",
        ),
        pytest.param(
            [slot(0, "rail fares: 1"), slot(1, "bus fares: 1", free=False)],
            calls(*[f"bus fares: {i}" for i in range(2, 20)]),
            (0, 2 * WINDOW_PER_CONTEXT - 1),
            id="the new stretch starts at the window's newest, not beyond",
        ),
        pytest.param(
            [slot(0, "rail fares: 1"), slot(1, "rail fares: 2", free=False)],
            calls("rail fares: 3"),
            (0, 0),
            id="sharing as much with both: a free context takes it",
        ),
        pytest.param(
            [slot(0, "rail fares: 1", loaded=False), slot(1, "x", loaded=True)],
            calls("rail fares: 2", None),
            (1, 1),
            id="a call that leaves the cache alone goes first, to a loaded context",
        ),
        pytest.param(
            [slot(0, "rail fares: 1")],
            [Waiting("bus fares: 1", passed=most_passes(1)), Waiting("rail fares: 2")],
            (0, 0),
            id="an overdue call goes next whatever it shares",
        ),
    ],
)
def test_the_next_call(
    slots: list[Slot], waiting: list[Waiting], expected: tuple[int, int] | None
) -> None:
    assert assign(slots, waiting) == expected


@given(
    st.lists(st.tuples(st.text("ab", max_size=6), st.booleans(), st.booleans()), min_size=1),
    st.lists(st.one_of(st.none(), st.text("ab", max_size=6)), max_size=20),
)
def test_a_free_context_always_gets_a_call_from_the_window(
    contexts: list[tuple[str, bool, bool]], prompts: list[str | None]
) -> None:
    slots = [slot(i, prompt, free, loaded) for i, (prompt, free, loaded) in enumerate(contexts)]
    pick = assign(slots, calls(*prompts))
    if not prompts or not any(s.free for s in slots):
        assert pick is None
        return
    assert pick is not None
    index, position = pick
    assert slots[index].free
    assert 0 <= position < min(len(prompts), WINDOW_PER_CONTEXT * len(slots))


def _case_order(families: int, cases: int) -> list[str]:
    """Prompts in the task's order: families of cases that share passages, one after another."""
    return [
        f"{INSTRUCTIONS}passages of family {f} " * 3 + f"question {c}"
        for f in range(families)
        for c in range(cases)
    ]


Choose = Callable[[Sequence[Slot], Sequence[Waiting]], "tuple[int, int] | None"]


def _evaluated(prompts: list[str], choose: Choose, contexts: int = 2) -> int:
    """Characters two contexts evaluate, every call as long as the next, the window full."""
    cached = [""] * contexts
    waiting = list(prompts)
    busy: list[int] = []  # contexts in the order they finish
    total = 0
    while waiting:
        slots = [slot(i, cached[i], free=i not in busy) for i in range(contexts)]
        pick = choose(slots, calls(*waiting))
        assert pick is not None
        index, position = pick
        prompt = waiting.pop(position)
        total += len(prompt) - common_prefix_length([cached[index], prompt])
        cached[index] = prompt
        busy.append(index)
        if len(busy) == contexts:
            busy.pop(0)
    return total


def _first_come(slots: Sequence[Slot], waiting: Sequence[Waiting]) -> tuple[int, int]:
    return next(s.index for s in slots if s.free), 0


def test_two_contexts_walk_separate_stretches_and_evaluate_less() -> None:
    prompts = _case_order(families=8, cases=6)
    one_context = _evaluated(prompts, _first_come, contexts=1)
    first_come = _evaluated(prompts, _first_come)
    chosen = _evaluated(prompts, assign)
    # Taken as they come, each context meets every family's passages anew.
    assert first_come > 1.5 * one_context
    # Walking stretches, each family's passages are evaluated about once.
    assert chosen < 1.2 * one_context
