"""Exact binomial tails for the guarantee: p-values, the bounds they give, and sample sizes.

Everything is the binomial distribution's own CDF, P(Bin(n, p) <= k) = I_{1-p}(n - k, k + 1),
through scipy.special's public `bdtr` and `betaincinv`: scipy.stats gives the same values behind
argument checks and a much slower import, which every judge-compare would pay.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import bdtr, betaincinv

Floats = NDArray[np.float64]

# Cases scanned at once when looking for the smallest sample that rejects.
_SCAN = 4096


@dataclass(frozen=True)
class Proportion:
    """`count` of `total`, with a two-sided exact (Clopper-Pearson) interval."""

    count: int
    total: int
    low: float
    high: float
    level: float

    @property
    def estimate(self) -> float:
        """count / total; NaN when total is 0."""
        return self.count / self.total if self.total else math.nan


def clopper_pearson(count: int, total: int, level: float = 0.95) -> Proportion:
    """The exact interval for a binomial proportion: the same tail the guarantee is tested on.

    Its ends are the Beta quantiles Beta(tail; count, total - count + 1) and
    Beta(1 - tail; count + 1, total - count), tail = (1 - level) / 2, with 0 and 1 at the edges;
    NaN ends when total is 0.
    """
    if total <= 0:
        return Proportion(count, total, math.nan, math.nan, level)
    tail = (1 - level) / 2
    low = 0.0 if count == 0 else float(betaincinv(count, total - count + 1, tail))
    high = 1.0 if count == total else float(betaincinv(count + 1, total - count, 1 - tail))
    return Proportion(count, total, low, high, level)


def p_values(errors: ArrayLike, decided: ArrayLike, alpha: float) -> Floats:
    """P(Bin(decided, alpha) <= errors): the exact p-value of the null "the judge's error rate
    on what it decides is above alpha", elementwise (Learn then Test's binomial p-value for a
    0/1 loss; Trust or Escalate's test of each threshold). 1 where nothing is decided."""
    found: Floats = np.asarray(bdtr(errors, decided, alpha), dtype=float)
    return found


def upper_bounds(errors: ArrayLike, decided: ArrayLike, delta: float) -> Floats:
    """The smallest alpha at which `errors` of `decided` reject at level `delta`, elementwise.

    P(Bin(n, a) <= k) falls as a rises, so the test rejects exactly for a at or above the root
    of P(Bin(n, a) <= k) = delta: the one-sided (1 - delta) Clopper-Pearson upper bound on the
    error rate, betaincinv(k + 1, n - k, 1 - delta). 1 where every decided case is an error, or
    none is decided (no alpha below 1 rejects).
    """
    k = np.asarray(errors, dtype=float)
    n = np.asarray(decided, dtype=float)
    some = k < n
    found: Floats = np.ones(np.broadcast(k, n).shape)
    found[some] = betaincinv(k[some] + 1, n[some] - k[some], 1 - delta)
    return found


def smallest_testable(alpha: float, delta: float) -> int:
    """The fewest decided cases that can reject at all: the smallest n with (1 - alpha)^n <=
    delta, i.e. n cases without one error. Below it no threshold can be certified."""
    n = max(1, math.ceil(math.log(delta) / math.log1p(-alpha)))
    # The logarithms' rounding can leave n one off either way; the power itself decides.
    while n > 1 and (1 - alpha) ** (n - 1) <= delta:
        n -= 1
    while (1 - alpha) ** n > delta:
        n += 1
    return n


def lowest_testable_alpha(decided: ArrayLike, delta: float) -> Floats:
    """The smallest alpha at which n decided cases can reject at all (none of them an error):
    1 - delta^(1/n), elementwise. `smallest_testable(a, delta) <= n` exactly when a is at least
    this."""
    n = np.asarray(decided, dtype=float)
    found: Floats = 1 - np.power(delta, 1 / n)
    return found


def cases_to_reject(
    errors: int, decided: int, cases: int, alpha: float, delta: float
) -> int | None:
    """The smallest gold set at which a threshold with this record would pass the exact test.

    The threshold decided `decided` of `cases` gold cases, `errors` of them wrong. With N gold
    cases at the same coverage and error rate it would decide m = floor(N * decided / cases)
    cases, ceil(m * errors / decided) of them wrong (the decided cases rounded down, the errors
    up). Returns the smallest N at which P(Bin(m, alpha) <= those errors) <= delta; None where
    no N would do (an error rate of alpha or more, or nothing decided). Rounding the errors up
    makes the test's p-value jump where one more error is counted, so at a few sizes just above
    N it can fail again by that one error.
    """
    if decided <= 0 or errors >= alpha * decided:
        return None
    gap = alpha - errors / decided
    # Hoeffding: from this many decided cases on, even one more error than the rate's share
    # leaves the tail under delta, so the scan below always ends by here.
    last = math.ceil(max(2 / gap, 2 * math.log(1 / delta) / gap**2)) + 1
    for first in range(1, last + 1, _SCAN):
        m = np.arange(first, min(first + _SCAN, last + 1))
        wrong = -((-errors * m) // decided)
        passing = np.flatnonzero(p_values(wrong, m, alpha) <= delta)
        if len(passing):
            least = int(m[passing[0]])
            return -((-least * cases) // decided)
    raise AssertionError("Hoeffding's bound promised a rejection by then")
