"""The audit's estimate when the judge decides alone only above a confidence threshold, by
simulation with known truth: every escalated answer labelled (people review them anyway), a
uniform sample of the answers it decided alone, each label weighted by its inverse inclusion
probability. Coverage and width printed, beside the same labels taken as a uniform sample.

N = 20,000 answers a period, an ungrounded rate of 0.2, 200 labels from the decided answers,
1,000 periods per judge (the Monte Carlo standard error of a 95 % coverage is 0.7 points).
Run with `-s` to see the figures.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
from numpy.typing import NDArray

from farejudge.audit.estimate.statistics import estimate_period
from farejudge.audit.stats.design import DECIDED, ESCALATED, inverse_inclusion, strata_by_escalation
from tests.support.audit_periods import ANSWERS, LABELS, RATE, uniform_positions

PERIODS = 1_000
THRESHOLD = 0.9
FAILURES = 0.03
"""Replies with no verdict: escalated, as the run escalates them."""
LEVEL = 0.935
pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class SelectiveJudge:
    """A judge with a confidence in each verdict."""

    name: str
    honesty: float
    """How much of its stated confidence above 1/2 is real: 1 calibrated, below 1
    over-confident (right with probability 1/2 + honesty x (confidence - 1/2))."""
    confidently_wrong: float = 0.0
    """The share of ungrounded answers it calls grounded with confidence 0.97."""

    def judge(
        self, rng: np.random.Generator, truth: NDArray[np.bool_]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Its verdicts (1 ungrounded, 0 grounded, NaN a failure) and their confidences."""
        n = len(truth)
        confidence = 0.5 + 0.5 * rng.beta(10, 1, n)
        right = rng.random(n) < 0.5 + self.honesty * (confidence - 0.5)
        verdict = np.where(right, truth, ~truth).astype(np.float64)
        slice_ = truth & (rng.random(n) < self.confidently_wrong)
        verdict[slice_] = 0.0
        confidence[slice_] = 0.97
        verdict[rng.random(n) < FAILURES] = np.nan
        return verdict, confidence


CALIBRATED = SelectiveJudge("calibrated", 1.0)
OVER_CONFIDENT = SelectiveJudge("over-confident", 0.7)
CONFIDENTLY_WRONG = SelectiveJudge("confidently wrong on a quarter of ungrounded", 1.0, 0.25)


@dataclass(frozen=True)
class Figures:
    coverage: float
    unweighted_coverage: float
    judge_coverage: float
    width: float
    escalated: float
    """Mean share of answers escalated (all labelled)."""


@cache
def simulate(judge: SelectiveJudge, seed: int = 20_261_206) -> Figures:
    rng = np.random.default_rng(seed)
    covered = unweighted = judge_covered = 0
    widths, shares = [], []
    for _ in range(PERIODS):
        truth = rng.random(ANSWERS) < RATE
        verdict, confidence = judge.judge(rng, truth)
        escalated = np.isnan(verdict) | (confidence < THRESHOLD)
        decided = np.flatnonzero(~escalated)
        positions = np.concatenate(
            [np.flatnonzero(escalated), decided[uniform_positions(rng, len(decided), LABELS)]]
        )
        strata = strata_by_escalation(escalated[positions].tolist())
        sizes = {ESCALATED: int(escalated.sum()), DECIDED: len(decided)}
        weights = inverse_inclusion(sizes, strata)
        labels = truth[positions].astype(np.float64)
        rate = float(truth.mean())
        found = estimate_period(verdict, positions, labels, weights=weights)
        covered += found.rate.interval.contains(rate)
        judge_covered += found.judge.interval.contains(rate)
        widths.append(2 * found.rate.interval.half_width)
        shares.append(sizes[ESCALATED] / ANSWERS)
        naive = estimate_period(verdict, positions, labels)
        unweighted += naive.rate.interval.contains(rate)
    return Figures(
        coverage=covered / PERIODS,
        unweighted_coverage=unweighted / PERIODS,
        judge_coverage=judge_covered / PERIODS,
        width=float(np.mean(widths)),
        escalated=float(np.mean(shares)),
    )


@pytest.mark.parametrize("judge", [CALIBRATED, OVER_CONFIDENT, CONFIDENTLY_WRONG], ids=str)
def test_escalated_in_full_beside_a_uniform_sample_covers_the_true_rate(
    judge: SelectiveJudge,
) -> None:
    found = simulate(judge)
    print(
        f"\n{judge.name}: {found.escalated:.1%} escalated and labelled, {LABELS} of the "
        f"decided; PPI weighted by inclusion covers {found.coverage:.1%} (mean width "
        f"{found.width:.4f}); the same labels as a uniform sample cover "
        f"{found.unweighted_coverage:.1%}; the judge's own interval {found.judge_coverage:.1%}"
    )
    assert found.coverage >= LEVEL
    # The reason for the weights: the escalated answers, over-represented in the labels, are
    # where the judge errs, so taken as a uniform sample they misstate its correction.
    assert found.unweighted_coverage < LEVEL
