"""The period's estimate by simulation with known truth: coverage and width, printed.

N = 20,000 answers a period, n = 200 labels, an ungrounded rate of 0.2, 2,000 periods per judge
(the Monte Carlo standard error of a 95 % coverage is then 0.5 points). The truth is each
period's own share of ungrounded answers. Run with `-s` to see the figures.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from farejudge.audit.estimate.statistics import estimate_period
from farejudge.audit.stats.design import FLAGGED, PASSED, inverse_inclusion
from farejudge.audit.stats.planning import JudgeFigures, neyman_allocation, verdict_spreads
from tests.support.audit_periods import (
    BIASED,
    EXCELLENT,
    FAILING,
    GOOD,
    GRADED,
    LABELS,
    NOISE,
    RATE,
    SimulatedJudge,
    simulate_period,
    uniform_positions,
)

PERIODS = 2_000
# About 40 s of CPU for the seven designs and judges: the inner loop leaves them out.
pytestmark = pytest.mark.slow
LEVEL = 0.935


@dataclass(frozen=True)
class Figures:
    coverage: float
    judge_coverage: float
    width: float
    wilson_width: float
    effective_labels: float


@cache
def simulate(judge: SimulatedJudge, design: str = "uniform", seed: int = 20_260_571) -> Figures:
    """Coverage and mean widths over PERIODS simulated periods of `judge` under `design`."""
    rng = np.random.default_rng(seed)
    covered = judge_covered = 0
    widths, wilson_widths, effective = [], [], []
    for _ in range(PERIODS):
        period = simulate_period(rng, judge)
        if design == "uniform":
            positions = uniform_positions(rng, len(period.truth), LABELS)
            weights = None
        else:
            positions, weights = _stratified(rng, judge, period.predictions)
        found = estimate_period(
            period.predictions, positions, period.truth[positions], weights=weights
        )
        covered += found.rate.interval.contains(period.rate)
        judge_covered += found.judge.interval.contains(period.rate)
        widths.append(2 * found.rate.interval.half_width)
        effective.append(found.effective_labels)
        wilson = found.labels_only.wilson() if judge in (GOOD, NOISE) else None
        if wilson is not None:
            wilson_widths.append(2 * wilson.half_width)
    return Figures(
        coverage=covered / PERIODS,
        judge_coverage=judge_covered / PERIODS,
        width=float(np.mean(widths)),
        wilson_width=float(np.mean(wilson_widths)) if wilson_widths else float("nan"),
        effective_labels=float(np.mean(effective)),
    )


def _stratified(
    rng: np.random.Generator, judge: SimulatedJudge, predictions: np.typing.NDArray[np.float64]
) -> tuple[np.typing.NDArray[np.int64], np.typing.NDArray[np.float64]]:
    """Labels spread over the verdict strata by Neyman's allocation from the judge's figures,
    drawn uniformly within each, weighted by their inverse inclusion probability."""
    flagged = ~(predictions < 0.5)  # a failure (NaN) is flagged, as strata_by_verdict puts it
    members = {FLAGGED: np.flatnonzero(flagged), PASSED: np.flatnonzero(~flagged)}
    sizes = {name: len(found) for name, found in members.items()}
    spreads = verdict_spreads(JudgeFigures(judge.sensitivity, judge.specificity), RATE)
    allocation = neyman_allocation(LABELS, sizes, spreads)
    drawn = {name: rng.choice(members[name], allocation[name], replace=False) for name in sizes}
    positions = np.concatenate([drawn[FLAGGED], drawn[PASSED]])
    strata = [FLAGGED] * allocation[FLAGGED] + [PASSED] * allocation[PASSED]
    return positions, inverse_inclusion(sizes, strata)


JUDGES = {
    "biased": (BIASED, "uniform"),
    "good": (GOOD, "uniform"),
    "excellent": (EXCELLENT, "uniform"),
    "noise": (NOISE, "uniform"),
    "fails on 10 %": (FAILING, "uniform"),
    "graded": (GRADED, "uniform"),
    "stratified, biased": (BIASED, "stratified"),
    "stratified, good": (GOOD, "stratified"),
}


@pytest.mark.parametrize("name", JUDGES)
def test_the_ppi_interval_covers_the_true_rate(name: str) -> None:
    judge, design = JUDGES[name]
    found = simulate(judge, design)
    print(
        f"\n{name:>20} ({design}): PPI covers {found.coverage:.1%} (mean width "
        f"{found.width:.4f}, {found.effective_labels:.0f} effective labels); "
        f"the judge's own interval covers {found.judge_coverage:.1%}"
    )
    assert found.coverage >= LEVEL
    # The reason for the method: the judge's own rate, biased by its errors, misses the truth
    # (an excellent judge's bias, 0.8 points here, is within its own interval now and then).
    if judge is not EXCELLENT:
        assert found.judge_coverage <= 0.05


@pytest.mark.parametrize(("judge", "ratio"), [(GOOD, 0.6), (NOISE, 1.05)])
def test_the_ppi_interval_against_the_labels_alone(judge: SimulatedJudge, ratio: float) -> None:
    found = simulate(judge)
    print(
        f"\n{judge.name}: mean width PPI {found.width:.4f}, labels alone (Wilson) "
        f"{found.wilson_width:.4f}: {found.width / found.wilson_width:.3f}x (at most {ratio}x)"
    )
    assert found.width <= ratio * found.wilson_width
