"""docs/escalation.md's worked example is what the code computes: its tables are rendered here
from two scripted judges and must appear in the page as they are."""

from pathlib import Path

import numpy as np
import pytest

from farejudge.comparison.escalation.cascade import Judge
from farejudge.comparison.escalation.threshold import calibrate
from tests.support.cascades import CascadeChoice, cheapest_cascade
from tests.support.graded_judges import floor_judge

PAGE = Path(__file__).resolve().parents[3] / "docs" / "escalation.md"

# 600 gold cases: 360 easy, 180 medium, 60 hard; the gold labels alternate.
KIND = np.repeat(["easy", "medium", "hard"], [360, 180, 60])
GOLD = np.tile([0.0, 1.0], 300)


def _judge(name: str, price: float, sure: dict[str, float], wrong: dict[str, int]) -> Judge:
    """Confidence `sure[kind]` on each case of a kind, wrong on the first `wrong[kind]` of them."""
    confidence = np.vectorize(sure.get)(KIND).astype(float)
    flipped = np.zeros(600, dtype=bool)
    for kind, count in wrong.items():
        flipped[np.flatnonzero(np.equal(KIND, kind))[:count]] = True
    return Judge(name, np.where(flipped, 1 - GOLD, GOLD), confidence, price)


CHEAP = _judge(
    "cheap",
    0.0005,
    {"easy": 0.99, "medium": 0.7, "hard": 0.6},
    {"easy": 4, "medium": 54, "hard": 30},
)
STRONG = _judge(
    "strong", 0.02, {"easy": 0.99, "medium": 0.95, "hard": 0.8}, {"easy": 2, "medium": 3, "hard": 9}
)
HUMAN = 0.50


def _share(value: float) -> str:
    return f"{value * 100:.0f} %"


def table(choice: CascadeChoice) -> str:
    lines = [
        "| Judges | Thresholds | Cheap decides | Strong decides | A person reviews "
        "| Agreement seen | Cost per 1,000 |",
        "|---|---|---|---|---|---|---|",
    ]
    for cascade in choice.cascades:
        shares = dict(zip([s.judge for s in cascade.stages], cascade.shares, strict=False))
        thresholds = ", ".join("none" if t is None else f"{t:g}" for t in cascade.thresholds)
        lines.append(
            f"| {cascade.name} | {thresholds} | "
            f"{_share(shares['cheap']) if 'cheap' in shares else '—'} | "
            f"{_share(shares['strong']) if 'strong' in shares else '—'} | "
            f"{_share(cascade.shares[-1])} | {cascade.agreement * 100:.1f} % | "
            f"{cascade.cost_per_1k:.2f} |"
        )
    return "\n".join(lines)


@pytest.mark.parametrize(("min_agreement", "pick"), [(0.9, "cheap → strong"), (0.95, "strong")])
def test_the_worked_example_is_in_the_page(min_agreement: float, pick: str) -> None:
    choice = cheapest_cascade([STRONG, CHEAP], GOLD, min_agreement, 0.1, HUMAN)
    rendered = table(choice)
    print(f"\nmin agreement {min_agreement}:\n{rendered}")
    assert choice.cheapest is not None and choice.cheapest.name == pick
    assert rendered in PAGE.read_text(encoding="utf-8")


def test_the_worked_examples_costs_by_hand() -> None:
    """At 90 %: the cheap judge decides the 360 easy cases; the strong one, on the 240 it is
    sent, all of them (12 wrong, 5 %). Per 1,000 answers: 1,000 x 0.0005 + 400 x 0.02 = 8.50.
    The strong judge alone decides all 600 (14 wrong): 1,000 x 0.02 = 20.00."""
    costs = {
        c.name: c.cost_per_1k
        for c in cheapest_cascade([STRONG, CHEAP], GOLD, 0.9, 0.1, HUMAN).cascades
    }
    assert costs["cheap → strong"] == pytest.approx(0.5 + 8.0)
    assert costs["strong"] == pytest.approx(20.0)
    assert costs["cheap"] == pytest.approx(0.5 + 400 * HUMAN)


def test_the_too_few_cases_figures_are_in_the_page() -> None:
    verdict, confidence, gold = floor_judge(signal=True)
    result = calibrate(verdict, confidence, gold, alpha=0.1, delta=0.1)
    assert result.best_alpha is not None and result.needed is not None
    first = result.tests[0]
    line = (
        f"it opens on {first.threshold:g} ({first.decided} cases decided, {first.errors} wrong: "
        f"p = {first.p_value:.2f}), the best it can guarantee is "
        f"{(1 - result.best_alpha) * 100:.1f} % agreement, and alpha = 0.1 would take about "
        f"{result.needed.cases} gold cases"
    )
    print(f"\n{line}")
    assert " ".join(line.split()) in " ".join(PAGE.read_text(encoding="utf-8").split())
