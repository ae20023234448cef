"""Intervals and tests for the comparison report.

Proportions get a Wilson score interval; every other figure gets a percentile bootstrap
that resamples cases (all epochs of a case together, since epochs of one case are not
independent draws). McNemar's test is the exact binomial test on the discordant pairs.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray
from scipy.stats import binom, binomtest, norm

Z95 = float(norm.ppf(0.975))


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float

    @classmethod
    def undefined(cls) -> "Interval":
        return cls(math.nan, math.nan, math.nan)


def wilson(successes: float, n: float, z: float = Z95) -> Interval:
    """Wilson score interval for successes out of n; fractional counts are allowed.

    Counts are fractional when a case is judged over several epochs and contributes the
    share of its epochs on each side; n stays the number of cases.
    """
    if n <= 0:
        return Interval.undefined()
    p = float(successes) / float(n)
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # At p = 0 or 1 an end is exactly 0 or 1; floating point would leave it a hair off.
    low = 0.0 if p == 0 else centre - half
    high = 1.0 if p == 1 else centre + half
    return Interval(p, low, high)


Statistic = Callable[[NDArray[np.float64]], float]
"""A figure computed from column totals over cases (counts of TP, FN, ..., claims matched)."""


@lru_cache(maxsize=16)
def _weights(n: int, resamples: int, seed: int) -> NDArray[np.int64]:
    """Row r counts how often each of n cases was drawn in resample r.

    Cached: every figure of one run resamples the same cases with the same seed.
    """
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offsets = (draws + n * np.arange(resamples)[:, None]).ravel()
    weights = np.bincount(offsets, minlength=resamples * n).reshape(resamples, n)
    weights.flags.writeable = False
    return weights


def bootstrap(
    rows: NDArray[np.float64],
    statistic: Statistic,
    resamples: int,
    seed: int,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of `statistic` over resampled rows (one row per case).

    Every figure in the report is a function of column totals, so a resample is drawn as
    case weights (how often each case was drawn) and its totals are one matrix product.
    Resamples where the figure is undefined (NaN, e.g. no ungrounded case drawn) are left
    out of the percentiles; if all are, the interval is undefined.
    """
    n = len(rows)
    estimate = float(statistic(rows.sum(axis=0)))
    if n == 0 or math.isnan(estimate):
        return Interval(estimate, math.nan, math.nan)
    values = np.array([statistic(totals) for totals in _weights(n, resamples, seed) @ rows])
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return Interval(estimate, math.nan, math.nan)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high))


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts."""
    n = fixed + broken
    if n == 0:
        return 1.0
    return float(binomtest(min(fixed, broken), n, 0.5).pvalue)


def mcnemar_detectable_change(
    pairs: int, discordance: float, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The smallest accuracy change that `pairs` paired cases detect with `power`.

    Exact two-sided McNemar at `alpha`, with discordant pairs drawn at the observed rate: the
    number of discordant pairs is binomial over the cases, and of those the share that are
    fixes is (discordance + change) / (2 * discordance). NaN where no change up to the
    discordance itself reaches the power (too few cases, or no discordant pair at all).
    """
    if pairs <= 0 or discordance <= 0:
        return math.nan
    counts = np.arange(pairs + 1)
    weights = binom.pmf(counts, pairs, discordance)
    # Per count of discordant pairs, the largest count of fixes the test rejects at the low
    # end (symmetric at the high end): 2 * P(X <= c) <= alpha under no change.
    critical = [_critical(int(d), alpha) for d in counts]
    for change in np.arange(0.005, discordance + 1e-9, 0.005):
        share = min(1.0, (discordance + change) / (2 * discordance))
        detect = sum(
            w * (binom.cdf(c, d, share) + binom.sf(d - c - 1, d, share))
            for d, w, c in zip(counts, weights, critical, strict=True)
            if c >= 0
        )
        if detect >= power:
            return float(change)
    return math.nan


@lru_cache(maxsize=4096)
def _critical(discordant: int, alpha: float) -> int:
    """The largest c with 2 * P(X <= c) <= alpha for X ~ Binomial(discordant, 1/2); -1 if none."""
    if discordant == 0:
        return -1
    below = 2 * binom.cdf(np.arange(discordant + 1), discordant, 0.5)
    rejecting = np.nonzero(below <= alpha)[0]
    return int(rejecting[-1]) if len(rejecting) else -1
