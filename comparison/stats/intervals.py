"""Intervals and exact tests: Wilson's, the percentile interval, exact McNemar and its power.

Proportions get a Wilson score interval; every other figure gets a percentile interval over
case resamples (`stats.bootstrap`). McNemar's test is the exact binomial test on the
discordant pairs. The interval type and the percentile interval live in `core.intervals`,
shared with the annotators' figures (`farejudge.raters`); the comparison and the audit import
them from here as before.
"""

import math

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtri

# scipy.stats' binomial is these ufuncs (Boost's) behind its argument checks, and importing
# scipy.stats costs a second of every judge-compare: the ufuncs alone give the same values.
from scipy.special._ufuncs import _binom_cdf, _binom_isf, _binom_pmf, _binom_ppf, _binom_sf

from farejudge.core.intervals import Interval as Interval
from farejudge.core.intervals import percentile_interval as percentile_interval

Z95 = float(ndtri(0.975))


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


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Two-sided exact McNemar p-value from the discordant pair counts."""
    n = fixed + broken
    if 2 * fixed == n:
        return 1.0
    # scipy.stats.binomtest at p = 1/2: the smaller count's tail and its mirror image.
    k = min(fixed, broken)
    return min(1.0, float(_binom_cdf(k, n, 0.5) + _binom_sf(n - k - 1, n, 0.5)))


# Binomial counts of discordant pairs less likely than this, together, are left out of the
# power sum: they cannot move it by more than this, and the sum stays linear in the pairs.
_NEGLIGIBLE = 1e-15


def mcnemar_detectable_change(
    pairs: int, discordance: float, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The smallest accuracy change that `pairs` paired cases detect with `power`.

    Exact two-sided McNemar at `alpha`, with discordant pairs drawn at the observed rate: the
    number of discordant pairs is binomial over the cases, and of those the share that are
    fixes is (discordance + change) / (2 * discordance). Changes are tried in steps of 0.005
    up to the discordance; NaN where none reaches the power (too few cases, or no discordant
    pair at all). Exact at any size: vectorised over the counts of discordant pairs, leaving
    out only the counts whose binomial probability is negligible (under 1e-15 together).
    """
    if pairs <= 0 or discordance <= 0:
        return math.nan
    low = int(_binom_ppf(_NEGLIGIBLE / 2, pairs, discordance))
    high = int(_binom_isf(_NEGLIGIBLE / 2, pairs, discordance))
    counts = np.arange(max(low - 1, 0), min(high + 1, pairs) + 1)
    critical = _critical(counts, alpha)
    tested = critical >= 0
    counts, critical = counts[tested], critical[tested]
    weights = _binom_pmf(counts, pairs, discordance)
    changes = np.arange(0.005, discordance + 1e-9, 0.005)
    shares = np.minimum(1.0, (discordance + changes) / (2 * discordance))[:, None]
    # Power at each change: P(reject) per count of discordant pairs, weighted by its chance.
    reject = _binom_cdf(critical, counts, shares) + _binom_sf(counts - critical - 1, counts, shares)
    detect = reject @ weights
    reached = np.nonzero(detect >= power)[0]
    return float(changes[reached[0]]) if len(reached) else math.nan


def _critical(discordant: NDArray[np.int64], alpha: float) -> NDArray[np.int64]:
    """Per count d, the largest c with 2 * P(X <= c) <= alpha for X ~ Binomial(d, 1/2); -1 if
    none (and for d = 0)."""
    d = discordant[:, None]
    # The answer is the quantile or just below it; checking its neighbours settles rounding.
    guess = _binom_ppf(alpha / 2, discordant, 0.5)[:, None] + np.arange(-2, 2)
    guess = np.clip(guess, -1, None)
    rejects = (2 * _binom_cdf(guess, d, 0.5) <= alpha) & (guess >= 0) & (d > 0)
    best: NDArray[np.int64] = np.where(rejects, guess, -1).max(axis=1).astype(np.int64)
    return best
