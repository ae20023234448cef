"""Alerts across periods: the judge has drifted, or the rate's interval lies above a threshold.

The drift detector. Each week's labels say how many of the labelled ungrounded answers the
judge missed and how many grounded ones it flagged. The alert says the judge's sensitivity (or
specificity) has fallen below what it had when it was picked, and it must stay valid although
the team looks every week: over a horizon of T looks, the chance of any false alarm while the
judge keeps its figures is at most alpha.

Why this detector. A confidence sequence over all weeks since the pick (Howard et al. 2021)
is valid at every look, but after many good weeks it reacts slowly: its estimate averages the
drifted weeks with the good ones. A change can start at any week, so the detector is an
e-detector (Shin, Ramdas and Rinaldo, 2023): one Shiryaev-Roberts statistic of e-values for
each of a few drops d (by default sensitivity or specificity lower by 0.05, 0.10, 0.20 or
0.30), and their mean,

    R_t(d) = (R_(t-1)(d) + 1) x L_t(d), with R_0(d) = 0, for each drop d
    R_t = the mean of R_t(d) over the drops d

where L_t(d) is week t's binomial likelihood ratio of the errors under the figure lowered by
d against the figure at the pick. R_t(d) is the sum over start weeks j <= t of
L_j(d) x ... x L_t(d): evidence from before a change carries little weight, so the statistic
answers within a few weeks of the change whatever came before it.

Why one statistic a drop. The other e-detector, one statistic of each week's ratio mixed
over the drops (R_t = (R_(t-1) + 1) x the mean of L_t(d)), spreads each week's evidence over
every drop, so a small drop reaches the threshold weeks later in the simulation (docs/audit.md
gives the delays; tests/audit/stats/test_drift.py measures them).

Why the threshold holds. Under the judge's figures at the pick (an error rate at most the
reference one, week after week), each likelihood ratio has expectation at most 1 given the
past and the week's label counts (the count of errors is binomial, and the ratio increases
with it), so E[R_t(d) | past] <= R_(t-1)(d) + 1 for each drop, and so for their mean. Then
R_t + (T - t) is a non-negative supermartingale from T, and Ville's inequality gives
P(R_t >= T / a for some t <= T) <= a. The sensitivity and the specificity detectors each get
a = alpha / 2 (Bonferroni), so the threshold is 2 T / alpha: 2,080 for a year of weekly looks
at alpha 0.05. Past T looks the guarantee ends: start a new horizon (a new reference if the
judge was picked again).

The reference is what the judge had when picked: its point estimate makes the alert say
"worse than measured then", its interval's lower end "worse than it could plausibly have been"
(fewer alarms, later detection).
"""

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from farejudge.audit.stats.arrays import Floats
from farejudge.audit.stats.intervals import check_alpha
from farejudge.core.intervals import Interval

DROPS = (0.05, 0.10, 0.20, 0.30)
"""The falls in sensitivity or specificity the detector mixes over."""
HORIZON = 52
"""Weekly looks the guarantee covers: a year."""


@dataclass(frozen=True)
class DriftDetection:
    """One figure's detector over the weeks so far."""

    figure: Literal["sensitivity", "specificity"]
    reference: float
    log_statistic: tuple[float, ...]
    """The natural log of R_t after each week."""
    log_threshold: float
    alarm_week: int | None
    """The first week (0-based) whose statistic reached the threshold; None if none did."""


@dataclass(frozen=True)
class DriftReport:
    sensitivity: DriftDetection
    specificity: DriftDetection
    alpha: float
    horizon: int

    @property
    def alarm(self) -> bool:
        return self.sensitivity.alarm_week is not None or self.specificity.alarm_week is not None


def log_shiryaev_roberts(
    errors: ArrayLike, trials: ArrayLike, reference: float, drops: tuple[float, ...] = DROPS
) -> Floats:
    """log R_t after each week (the last axis) from each week's `errors` out of `trials`.

    `reference` is the figure at the pick (sensitivity, with misses out of ungrounded labels;
    or specificity, with false alarms out of grounded labels); the error rate under the null
    is 1 - reference, under each alternative 1 - (reference - drop). Leading axes (streams)
    are computed alike. Drops that would leave the figure at or below 0 are left out.
    """
    k = np.asarray(errors, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    if k.shape != n.shape or k.ndim == 0:
        raise ValueError(f"errors of shape {k.shape} but trials of shape {n.shape}")
    if np.any(k < 0) or np.any(k > n):
        raise ValueError("errors must lie between 0 and the week's trials")
    if not 0 < reference < 1:
        raise ValueError(f"the reference must lie strictly between 0 and 1, not {reference}")
    null = 1 - reference
    alternatives = np.array([null + d for d in drops if d > 0 and null + d < 1])
    if len(alternatives) == 0:
        raise ValueError(f"no drop in {drops} leaves a figure above 0 from {reference}")
    # log L per alternative and week: the binomial likelihood ratio of the week's errors.
    shape = (len(alternatives),) + (1,) * k.ndim
    q1 = alternatives.reshape(shape)
    log_ratio = k * np.log(q1 / null) + (n - k) * np.log((1 - q1) / (1 - null))
    log_r = np.full(log_ratio.shape[:-1], -np.inf)
    found = np.empty(log_ratio.shape)
    for week in range(k.shape[-1]):
        log_r = np.logaddexp(log_r, 0.0) + log_ratio[..., week]
        found[..., week] = log_r
    # The mixture over the alternatives: the mean of their statistics.
    mixed: Floats = np.logaddexp.reduce(found, axis=0) - math.log(len(alternatives))
    return mixed


def log_threshold(alpha: float = 0.05, horizon: int = HORIZON, detectors: int = 2) -> float:
    """log(detectors x horizon / alpha): the threshold keeping the chance of any false alarm
    over `horizon` looks of `detectors` detectors at most alpha."""
    check_alpha(alpha)
    if horizon < 1:
        raise ValueError(f"a horizon of {horizon} looks")
    return math.log(detectors * horizon / alpha)


def detect_drift(
    misses: ArrayLike,
    positives: ArrayLike,
    false_alarms: ArrayLike,
    negatives: ArrayLike,
    reference_sensitivity: float,
    reference_specificity: float,
    alpha: float = 0.05,
    horizon: int = HORIZON,
    drops: tuple[float, ...] = DROPS,
) -> DriftReport:
    """The drift detectors over one stream of weeks, oldest first: each week's misses out of
    its answered ungrounded labels and false alarms out of its answered grounded ones
    (`JudgeAgreement`'s counts). A ValueError if there are more weeks than the horizon covers."""
    weeks = len(np.atleast_1d(np.asarray(misses)))
    if weeks > horizon:
        raise ValueError(
            f"{weeks} weeks, past the horizon of {horizon} looks the threshold holds for: "
            "start a new horizon"
        )
    threshold = log_threshold(alpha, horizon)

    def check(
        figure: Literal["sensitivity", "specificity"],
        errors: ArrayLike,
        trials: ArrayLike,
        reference: float,
    ) -> DriftDetection:
        statistic = log_shiryaev_roberts(errors, trials, reference, drops)
        reached = np.flatnonzero(statistic >= threshold)
        return DriftDetection(
            figure=figure,
            reference=reference,
            log_statistic=tuple(float(x) for x in statistic),
            log_threshold=threshold,
            alarm_week=int(reached[0]) if len(reached) else None,
        )

    return DriftReport(
        sensitivity=check("sensitivity", misses, positives, reference_sensitivity),
        specificity=check("specificity", false_alarms, negatives, reference_specificity),
        alpha=alpha,
        horizon=horizon,
    )


def rate_alert(rate: Interval, threshold: float) -> bool:
    """Whether the period's rate interval lies wholly above `threshold`.

    A claim about one period at the interval's level: where the true rate sits exactly at the
    threshold, a 95 % interval lies above it in at most 2.5 % of periods (about 1.3 false
    alerts in a year of weekly periods); a smaller alpha for the interval makes them rarer.
    """
    return rate.low > threshold
