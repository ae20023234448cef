"""Gold under suspicion on hand-made rows: which cases a panel confidently doubts."""

import math

import pytest

from farejudge.comparison.cases import per_case
from farejudge.comparison.panel.majority import build_panels
from farejudge.comparison.panel.suspicion import MARGIN, find_suspects, wrong_side
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs


@pytest.mark.parametrize(
    ("gold", "p", "expected"),
    [
        ("ungrounded", 0.25, True),
        ("ungrounded", 0.3, False),
        ("ungrounded", 0.9, False),
        ("grounded", 0.75, True),
        ("grounded", 0.7, False),
        ("grounded", 0.1, False),
    ],
)
def test_a_graded_score_is_confidently_wrong_past_the_margin(
    gold: str, p: float, expected: bool
) -> None:
    assert MARGIN == 0.25
    assert wrong_side(gold, p) is expected


def suspects_of(rows: list[dict[str, object]]) -> list[str]:
    panels, _ = build_panels(per_case(runs(rows).samples), ["v3"], None, Resampling(50, 0))
    return [s.case for s in find_suspects(panels)]


def wrong(
    case: str, gold: int, model: str, epoch: int = 1, p_ungrounded: float = math.nan
) -> dict[str, object]:
    """One epoch of `model` saying the opposite of gold; graded by logprobs if `p_ungrounded`."""
    source = "none" if math.isnan(p_ungrounded) else "logprobs"
    return row(case, gold, 1 - gold, "v3", epoch, 0, model, p_ungrounded, source)


def test_a_suspect_has_every_member_wrong_in_every_epoch() -> None:
    every = [wrong("a-0", 1, m, e) for m in "abc" for e in (1, 2)]
    one_epoch_right = [wrong("a-1", 1, m) for m in "abc"] + [
        *[wrong("a-1", 1, m, 2) for m in "ab"],
        row("a-1", 1, 1, version="v3", model="c", epoch=2),
    ]
    failed = [wrong("a-2", 0, m) for m in "ab"] + [
        row("a-2", 0, 0, version="v3", model="c", failure=1)
    ]
    assert suspects_of(every + one_epoch_right + failed) == ["a-0"]


def test_a_graded_score_near_the_line_clears_a_case_and_one_past_it_does_not() -> None:
    rows = [wrong("g-0", 1, m, p_ungrounded=0.2) for m in "ab"]
    rows += [wrong("g-0", 1, "c")]  # no graded score: its verdict alone counts
    rows += [wrong("g-1", 1, m, p_ungrounded=0.2) for m in "ab"]
    rows += [wrong("g-1", 1, "c", p_ungrounded=0.45)]
    assert suspects_of(rows) == ["g-0"]


def test_a_derived_case_is_never_a_suspect() -> None:
    rows = [{**wrong("d-0~negation", 1, m), "relation": "negation"} for m in "abc"]
    assert suspects_of(rows) == []
