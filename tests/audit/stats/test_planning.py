"""Sample-size planning, checked by simulation, and Neyman's allocation."""

import numpy as np
import pytest

from farejudge.audit.estimate.statistics import estimate_period
from farejudge.audit.stats.design import FLAGGED, PASSED
from farejudge.audit.stats.planning import (
    JudgeFigures,
    neyman_allocation,
    plan_sample_size,
    verdict_spreads,
)
from tests.support.audit_periods import (
    ANSWERS,
    BIASED,
    GOOD,
    RATE,
    SimulatedJudge,
    simulate_period,
    uniform_positions,
)

HALF_WIDTH = 0.03


def test_specificity_comes_from_the_balanced_accuracy() -> None:
    judge = JudgeFigures.from_decision(recall=0.9, balanced_accuracy=0.85, failure_rate=0.02)
    assert judge.specificity == pytest.approx(0.8) and judge.failure_rate == 0.02
    with pytest.raises(ValueError, match="specificity must lie in"):
        JudgeFigures.from_decision(recall=0.5, balanced_accuracy=0.9)


@pytest.mark.parametrize("simulated", [GOOD, BIASED], ids=["good", "biased"])
def test_the_planned_labels_give_the_half_width(simulated: SimulatedJudge) -> None:
    judge = JudgeFigures(simulated.sensitivity, simulated.specificity)
    plan = plan_sample_size(judge, RATE, HALF_WIDTH, population=ANSWERS)
    rng = np.random.default_rng(57)
    ppi: list[float] = []
    alone: list[float] = []
    for _ in range(400):
        period = simulate_period(rng, simulated)
        for labels, found in ((plan.labels_ppi, ppi), (plan.labels_only, alone)):
            positions = uniform_positions(rng, ANSWERS, labels)
            estimate = estimate_period(period.predictions, positions, period.truth[positions])
            interval = estimate.rate if found is ppi else estimate.labels_only.classical
            found.append(interval.interval.half_width)
    print(
        f"\n{simulated.name}: +/-{HALF_WIDTH} needs {plan.labels_ppi} labels by PPI "
        f"(mean half-width {np.mean(ppi):.4f}) and {plan.labels_only} alone "
        f"({np.mean(alone):.4f}): {plan.labels_saved} saved, rho^2 {plan.correlation_squared:.3f}"
    )
    assert np.mean(ppi) == pytest.approx(HALF_WIDTH, rel=0.05)
    assert np.mean(alone) == pytest.approx(HALF_WIDTH, rel=0.05)
    assert plan.labels_saved > 0


def test_a_judge_that_is_noise_saves_nothing() -> None:
    plan = plan_sample_size(JudgeFigures(0.5, 0.5), RATE, HALF_WIDTH)
    assert plan.correlation_squared == 0 and plan.labels_saved == 0


def test_failures_and_a_small_period_cost_labels() -> None:
    judge = JudgeFigures(0.95, 0.95)
    unlimited = plan_sample_size(judge, RATE, HALF_WIDTH)
    failing = plan_sample_size(JudgeFigures(0.95, 0.95, failure_rate=0.1), RATE, HALF_WIDTH)
    small = plan_sample_size(judge, RATE, HALF_WIDTH, population=2_000)
    assert unlimited.labels_ppi < failing.labels_ppi < unlimited.labels_only
    assert unlimited.labels_ppi < small.labels_ppi
    with pytest.raises(ValueError, match="needs more labels than the period's 300 answers"):
        plan_sample_size(judge, RATE, 0.01, population=300)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rate": 0.0}, "expected rate must lie strictly"),
        ({"half_width": 0.0}, "half-width must lie strictly"),
        ({"alpha": 0.0}, "alpha must lie strictly"),
        ({"population": 0}, "a period of 0 answers"),
    ],
)
def test_bad_plans_are_named(options: dict[str, float], message: str) -> None:
    arguments = {"rate": RATE, "half_width": HALF_WIDTH, **options}
    with pytest.raises(ValueError, match=message):
        plan_sample_size(JudgeFigures(0.9, 0.9), **arguments)  # type: ignore[arg-type]


def test_neyman_allocation_labels_more_of_what_a_biased_judge_flags() -> None:
    spreads = verdict_spreads(JudgeFigures(0.95, 0.70), RATE)
    sizes = {FLAGGED: 8_600, PASSED: 11_400}
    found = neyman_allocation(200, sizes, spreads)
    print(f"\nNeyman's allocation of 200 labels for the biased judge: {found}")
    assert sum(found.values()) == 200 and found[FLAGGED] > 200 * 8_600 / 20_000
    good = neyman_allocation(
        200, {FLAGGED: 4_600, PASSED: 15_400}, verdict_spreads(JudgeFigures(0.95, 0.95), RATE)
    )
    assert good[FLAGGED] == pytest.approx(100, abs=3)


def test_neyman_allocation_keeps_every_stratum_within_its_bounds() -> None:
    found = neyman_allocation(10, {"a": 1_000, "b": 3, "c": 50}, {"a": 0.5, "b": 0.5, "c": 0.0})
    assert found == {"a": 6, "b": 2, "c": 2}
    assert neyman_allocation(6, {"a": 3, "b": 3}, {"a": 0.5, "b": 0.1}) == {"a": 3, "b": 3}
    assert neyman_allocation(4, {"a": 0, "b": 9}, {"a": 0.5, "b": 0.1}) == {"b": 4}


@pytest.mark.parametrize(
    ("size", "sizes", "message"),
    [
        (20, {"a": 5, "b": 5}, "20 draws from a population of 10"),
        (3, {"a": 5, "b": 5}, "cannot give each of 2 strata 2"),
        (4, {}, "no drafts"),
    ],
)
def test_bad_allocations_are_named(size: int, sizes: dict[str, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        neyman_allocation(size, sizes, {"a": 0.5, "b": 0.5})
