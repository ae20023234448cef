"""The period's estimate with several noisy annotators on each sampled answer, by simulation with
known truth: coverage, printed.

Three annotators of known sensitivity and specificity; each of the 200 sampled answers is
labelled by two or three of them, drawn at random, and its label is their mean, as
`judge-audit estimate` takes it. What that label estimates is the share of the period's
answers the average annotator would call ungrounded: each answer's expected mean label is the
annotators' mean P(ungrounded | its truth), and the estimand is its mean over the period's
answers, rate x mean sensitivity + (1 - rate) x (1 - mean specificity). 1,000 periods a judge
(the Monte Carlo standard error of a 95 % coverage is then 0.7 points). Run with `-s` to see
the figures.
"""

import numpy as np
import pytest

from farejudge.audit.estimate.statistics import estimate_period
from tests.support.audit_periods import (
    BIASED,
    EXCELLENT,
    GOOD,
    LABELS,
    SimulatedJudge,
    simulate_period,
    uniform_positions,
)

PERIODS = 1_000
LEVEL = 0.935
# A few seconds of CPU for the three judges.
pytestmark = pytest.mark.slow

SENSITIVITY = np.array([0.90, 0.80, 0.95])
SPECIFICITY = np.array([0.95, 0.90, 0.85])


def _labels(
    rng: np.random.Generator, truth: np.typing.NDArray[np.bool_]
) -> np.typing.NDArray[np.float64]:
    """Each answer's mean label from two or three of the annotators, drawn at random."""
    said = rng.random((len(truth), 3)) < np.where(truth[:, None], SENSITIVITY, 1 - SPECIFICITY)
    # A random order of the annotators for each answer; the first two or three label it.
    order = rng.random((len(truth), 3)).argsort(axis=1)
    labelling = order < rng.integers(2, 4, size=len(truth))[:, None]
    return np.asarray((said & labelling).sum(axis=1) / labelling.sum(axis=1), dtype=np.float64)


def _coverage(judge: SimulatedJudge, seed: int = 20_261_207) -> tuple[float, float, float]:
    """Coverage of the estimand, coverage of the true rate, and the mean width."""
    rng = np.random.default_rng(seed)
    covered = truth_covered = 0
    widths = []
    for _ in range(PERIODS):
        period = simulate_period(rng, judge)
        positions = uniform_positions(rng, len(period.truth), LABELS)
        labels = _labels(rng, period.truth[positions])
        found = estimate_period(period.predictions, positions, labels)
        rate = period.rate
        estimand = rate * SENSITIVITY.mean() + (1 - rate) * (1 - SPECIFICITY.mean())
        covered += found.rate.interval.contains(estimand)
        truth_covered += found.rate.interval.contains(rate)
        widths.append(2 * found.rate.interval.half_width)
    return covered / PERIODS, truth_covered / PERIODS, float(np.mean(widths))


@pytest.mark.parametrize("judge", [BIASED, GOOD, EXCELLENT], ids=lambda j: j.name)
def test_the_mean_label_estimate_covers_the_average_annotators_rate(
    judge: SimulatedJudge,
) -> None:
    coverage, of_truth, width = _coverage(judge)
    print(
        f"\n{judge.name}: covers the average annotator's rate in {coverage:.1%} of {PERIODS} "
        f"periods (mean width {width:.4f}); the true rate in {of_truth:.1%}"
    )
    assert coverage >= LEVEL
    # What the number is not: at these annotators' noise the average annotator's rate is
    # 0.2 x 0.883 + 0.8 x 0.1 = 0.257, not the true 0.2, which the interval mostly misses.
    assert of_truth <= 0.5
