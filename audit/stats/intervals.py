"""The intervals of a binomial proportion, and the normal quantile of an interval's level.

The binomial intervals are scipy's (`scipy.stats.binomtest(...).proportion_ci`): Wilson's
score interval (without continuity correction) and Clopper-Pearson's exact one.
"""

from scipy.special import ndtri
from scipy.stats import binomtest

from farejudge.core.intervals import Interval


def check_alpha(alpha: float) -> None:
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie strictly between 0 and 1, not {alpha}")


def z_quantile(alpha: float) -> float:
    """The normal quantile of a two-sided interval at level 1 - alpha (1.96 at 0.05)."""
    check_alpha(alpha)
    return float(ndtri(1 - alpha / 2))


def wilson(successes: int, trials: int, alpha: float = 0.05) -> Interval:
    """Wilson's score interval for `successes` out of `trials`; undefined with no trial."""
    return _binomial(successes, trials, alpha, "wilson")


def clopper_pearson(successes: int, trials: int, alpha: float = 0.05) -> Interval:
    """Clopper-Pearson's exact interval for `successes` out of `trials`; undefined with none."""
    return _binomial(successes, trials, alpha, "exact")


def _binomial(successes: int, trials: int, alpha: float, method: str) -> Interval:
    check_alpha(alpha)
    if not 0 <= successes <= trials:
        raise ValueError(f"{successes} successes out of {trials} trials")
    if trials == 0:
        return Interval.undefined()
    found = binomtest(successes, trials).proportion_ci(confidence_level=1 - alpha, method=method)
    return Interval(successes / trials, float(found.low), float(found.high))
