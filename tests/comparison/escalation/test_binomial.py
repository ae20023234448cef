"""The exact binomial tails against scipy.stats and their definitions."""

import math

import numpy as np
import pytest
from scipy.stats import binom, binomtest

from farejudge.comparison.escalation import binomial

COUNTS = [(0, 1), (0, 30), (3, 30), (7, 50), (50, 50), (12, 144), (140, 144)]


@pytest.mark.parametrize(("k", "n"), COUNTS)
def test_p_values_are_the_binomial_cdf(k: int, n: int) -> None:
    assert binomial.p_values(k, n, 0.1) == pytest.approx(binom.cdf(k, n, 0.1), rel=1e-12)
    # scipy's exact one-sided binomial test of "the error rate is at least 0.1".
    assert binomial.p_values(k, n, 0.1) == pytest.approx(
        binomtest(k, n, 0.1, "less").pvalue, rel=1e-12
    )


@pytest.mark.parametrize(("k", "n"), COUNTS)
def test_the_interval_is_scipys_exact_one(k: int, n: int) -> None:
    found = binomial.clopper_pearson(k, n)
    reference = binomtest(k, n).proportion_ci(0.95, method="exact")
    assert (found.low, found.high) == pytest.approx((reference.low, reference.high), abs=1e-12)
    assert found.estimate == k / n


@pytest.mark.parametrize(("k", "n"), COUNTS)
def test_the_upper_bound_is_where_the_test_starts_to_reject(k: int, n: int) -> None:
    bound = float(binomial.upper_bounds(k, n, 0.1))
    if k == n:
        assert bound == 1.0
        return
    assert binom.cdf(k, n, bound) == pytest.approx(0.1, rel=1e-9)
    assert binom.cdf(k, n, bound + 1e-9) <= 0.1 < binom.cdf(k, n, bound - 1e-9)
    # The one-sided 90 % upper end of scipy's exact interval.
    upper = binomtest(k, n).proportion_ci(0.8, method="exact").high
    assert bound == pytest.approx(upper, rel=1e-9)


@pytest.mark.parametrize(("alpha", "delta"), [(0.1, 0.1), (0.1, 0.1 / 3), (0.2, 0.2), (0.05, 0.01)])
def test_the_fewest_cases_that_can_reject(alpha: float, delta: float) -> None:
    n = binomial.smallest_testable(alpha, delta)
    assert (1 - alpha) ** n <= delta < (1 - alpha) ** (n - 1)
    assert (
        binomial.lowest_testable_alpha(n, delta)
        <= alpha
        < binomial.lowest_testable_alpha(n - 1, delta)
    )


def test_cases_to_reject_is_the_first_size_that_rejects() -> None:
    def rejects(errors: int, decided: int, cases: int, size: int) -> bool:
        m = decided * size // cases
        return m > 0 and binom.cdf(math.ceil(errors * m / decided), m, 0.1) <= 0.1

    for record in [(2, 30, 144), (1, 16, 20), (0, 10, 100), (5, 200, 200)]:
        found = binomial.cases_to_reject(*record, 0.1, 0.1)
        assert found is not None and rejects(*record, found)
        assert not any(rejects(*record, size) for size in range(1, found))
    assert binomial.cases_to_reject(3, 30, 144, 0.1, 0.1) is None  # 10 %: never below alpha
    assert binomial.cases_to_reject(0, 0, 144, 0.1, 0.1) is None


def test_upper_bounds_are_elementwise() -> None:
    found = binomial.upper_bounds(np.array([0, 2, 5]), np.array([30, 30, 5]), 0.1)
    assert found[2] == 1.0 and found[0] < found[1] < 1
