"""A panel's effective number of judges, from how alike its members' errors are.

Members that make the same mistakes add little: n judges whose errors against gold correlate
at rho on average (the mean over pairs of members) are worth n_eff = n / (1 + (n − 1) rho)
independent ones (Kish's design effect). Independent errors give n, a panel of copies gives 1.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from farejudge.core.intervals import Interval, percentile_interval
from farejudge.raters._labels import (
    Floats,
    item_weights,
    label_matrix,
)

MOSTLY_ONE_JUDGE = 1.5
"""Below this effective number, the panel is mostly one judge."""


@dataclass(frozen=True)
class EffectiveJudges:
    """A panel's effective number of judges on one set of cases."""

    members: int
    mean_correlation: float
    """rho: the mean over pairs of members of the correlation of their errors (pairs where a
    member made no error, or only errors, have none and are left out)."""
    effective: Interval
    """n_eff with its percentile bootstrap interval over cases."""

    @property
    def mostly_one_judge(self) -> bool:
        return self.effective.estimate < MOSTLY_ONE_JUDGE


def _pairs(members: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """The first and second member of every pair of members."""
    a, b = np.array(list(combinations(range(members), 2)), dtype=np.intp).T
    return a, b


def _effective_from_moments(rates: Floats, both: Floats) -> tuple[Floats, Floats]:
    """rho and n_eff from each member's error rate (`rates`: [..., member]) and each pair's
    rate of erring together (`both`: [..., pair]); errors are 0 or 1, so a member's variance
    is rate · (1 − rate)."""
    members = rates.shape[-1]
    a, b = _pairs(members)
    variance = rates * (1 - rates)
    covariance = both - rates[..., a] * rates[..., b]
    scale = np.sqrt(variance[..., a] * variance[..., b])
    # A member with no spread in its errors has no correlation with anyone: left out.
    defined = scale > 1e-12
    correlation = np.where(defined, covariance / np.where(defined, scale, 1.0), 0.0)
    counted = defined.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(counted > 0, correlation.sum(axis=-1) / counted, np.nan)
        denominator = 1 + (members - 1) * mean
        effective = np.where(denominator > 0, members / denominator, np.nan)
    return mean, effective


def effective_judges(
    verdicts: ArrayLike,
    gold: ArrayLike,
    resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> EffectiveJudges:
    """The effective number of judges of a panel whose members gave `verdicts` (cases by
    members) on cases whose gold labels are `gold`, with a bootstrap interval over cases.

    An error is a verdict that differs from gold. Every member must have judged every case
    (no NaN): the correlations are then over the same cases. NaN where no pair of members has
    a defined correlation.
    """
    found = label_matrix(verdicts)
    truth = np.array(gold, dtype=float)
    if truth.shape != (found.shape[0],) or np.isnan(found).any() or np.isnan(truth).any():
        raise ValueError(
            "verdicts must be cases by members and gold one label per case, none missing"
        )
    members = found.shape[1]
    if members < 2:
        raise ValueError(f"a panel has two members or more, not {members}")
    errors = (found != truth[:, None]).astype(float)
    a, b = _pairs(members)
    # Per case: each member's error, then each pair's joint error. Every figure is a function
    # of these columns' means, so a resample is one matrix product of its case weights.
    columns = np.hstack([errors, errors[:, a] * errors[:, b]])
    mean, effective = _effective_from_moments(
        columns[:, :members].mean(axis=0), columns[:, members:].mean(axis=0)
    )
    moments = item_weights(len(errors), resamples, seed) @ columns / len(errors)
    _, resampled = _effective_from_moments(moments[:, :members], moments[:, members:])
    return EffectiveJudges(
        members=members,
        mean_correlation=float(mean),
        effective=percentile_interval(float(effective), resampled, level),
    )
