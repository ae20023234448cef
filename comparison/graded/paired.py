"""Two graded scores on the same cases compared: DeLong's test of their AUCs, paired Brier.

Also the smallest AUC change DeLong's test detects, and the Brier change's paired bootstrap
interval and paired t-test.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr, ndtri, stdtr

from farejudge.comparison.stats.bootstrap import Resampling, bootstrap
from farejudge.comparison.stats.intervals import Z95, Interval

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class DeLong:
    """DeLong's test of two correlated ROC curves on the same cases (fast DeLong)."""

    auc_before: float
    auc_after: float
    change: Interval
    """AUC after minus before, with its normal 95 % interval from the DeLong variance."""
    z: float
    p_value: float
    sd: float
    """Standard deviation of the AUC difference."""


@dataclass(frozen=True)
class PairedBrier:
    change: Interval
    """Brier after minus before (negative is better), paired bootstrap interval over cases."""
    p_value: float
    """Paired t-test on the per-case squared errors."""


def _midranks(x: Floats) -> Floats:
    """Ranks along the last axis from 1, a tied group each given its mean rank (as
    scipy.stats.rankdata gives them, without importing scipy.stats)."""
    order = np.argsort(x, axis=-1, kind="stable")
    ranked = np.take_along_axis(x, order, axis=-1)
    ranks = np.empty(x.shape)
    for row, (values, sort) in enumerate(zip(ranked, order, strict=True)):
        starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
        ends = np.r_[starts[1:], len(values)]
        # A group from 0-based position s to e (exclusive) holds ranks s+1 .. e: mean (s+e+1)/2.
        ranks[row, sort] = np.repeat((starts + ends + 1) / 2, ends - starts)
    return ranks


def _paired_t_p_value(after: Floats, before: Floats) -> float:
    """Two-sided paired t-test p-value, computed as scipy.stats.ttest_rel computes it."""
    gain = after - before
    n = len(gain)
    mean = np.mean(gain)
    centred = gain - mean
    variance = np.mean(centred * centred) * (n / (n - 1))
    t = mean / np.sqrt(variance / n)
    return float(2 * stdtr(n - 1, -np.abs(t)))


def delong_components(gold: Floats, scores: Floats) -> tuple[Floats, Floats]:
    """AUCs of k scores on the same cases (rows of `scores`) and their DeLong covariance.

    Fast DeLong (Sun & Xu 2014, IEEE Signal Processing Letters 21(11)): midranks within the
    positives, within the negatives and over all cases give every structural component in
    O(k N log N), without the m x n comparison matrix.
    """
    positive = gold == 1
    pos, neg = scores[:, positive], scores[:, ~positive]
    m, n = pos.shape[1], neg.shape[1]
    if m == 0 or n == 0:
        k = len(scores)
        return np.full(k, np.nan), np.full((k, k), np.nan)
    ranked = _midranks(np.concatenate([pos, neg], axis=1))
    v_pos = (ranked[:, :m] - _midranks(pos)) / n
    v_neg = 1.0 - (ranked[:, m:] - _midranks(neg)) / m
    aucs = v_pos.mean(axis=1)
    # A class of one case has no spread to estimate: its term is undefined.
    s_pos = np.cov(v_pos) if m > 1 else np.full((len(scores),) * 2, np.nan)
    s_neg = np.cov(v_neg) if n > 1 else np.full((len(scores),) * 2, np.nan)
    return aucs, np.atleast_2d(s_pos / m + s_neg / n)


def delong_test(gold: Floats, before: Floats, after: Floats) -> DeLong:
    """Two-sided DeLong test of AUC(after) - AUC(before) on the same cases."""
    aucs, cov = delong_components(np.asarray(gold, float), np.vstack([before, after]))
    change = float(aucs[1] - aucs[0])
    variance = float(cov[0, 0] + cov[1, 1] - 2 * cov[0, 1])
    sd = math.sqrt(max(variance, 0.0)) if not math.isnan(variance) else math.nan
    if math.isnan(sd) or math.isnan(change):
        undefined = Interval(change, math.nan, math.nan)
        return DeLong(float(aucs[0]), float(aucs[1]), undefined, math.nan, math.nan, sd)
    if sd == 0:
        # Identical rankings of the two classes: no difference, and none to test.
        z, p = (0.0, 1.0) if change == 0 else (math.copysign(math.inf, change), 0.0)
    else:
        z = change / sd
        p = float(2 * ndtr(-abs(z)))
    return DeLong(
        auc_before=float(aucs[0]),
        auc_after=float(aucs[1]),
        change=Interval(change, change - Z95 * sd, change + Z95 * sd),
        z=z,
        p_value=p,
        sd=sd,
    )


def auc_detectable_change(sd: float, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest AUC change these cases detect with `power` (two-sided, at `alpha`).

    Normal approximation: the change must exceed (z_(1-alpha/2) + z_power) standard
    deviations of the difference, taking the DeLong deviation observed here as the one under
    the alternative. NaN when that deviation is undefined or zero (nothing varies).
    """
    if math.isnan(sd) or sd <= 0:
        return math.nan
    return float((ndtri(1 - alpha / 2) + ndtri(power)) * sd)


def paired_brier(
    gold: Floats, before: Floats, after: Floats, resampling: Resampling
) -> PairedBrier:
    gold = np.asarray(gold, float)
    errors_before = (np.asarray(before, float) - gold) ** 2
    errors_after = (np.asarray(after, float) - gold) ** 2
    gain = errors_after - errors_before
    if len(gain) == 0:
        return PairedBrier(Interval.undefined(), math.nan)
    if np.all(gain == gain[0]):
        # No spread in the differences: the t statistic is 0/0 or infinite.
        p = 1.0 if gain[0] == 0 else 0.0
    else:
        p = _paired_t_p_value(errors_after, errors_before)
    change = bootstrap(np.column_stack([gain, np.ones(len(gain))]), _mean_of_first, resampling)
    return PairedBrier(change, p)


def _mean_of_first(totals: Floats) -> float:
    return float(totals[0] / totals[1])
