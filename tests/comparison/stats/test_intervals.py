"""Wilson's interval, exact McNemar and the smallest change it detects, against textbook
values, scipy and the definitions."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from farejudge.comparison.stats.intervals import (
    _critical,
    mcnemar_detectable_change,
    mcnemar_exact,
    wilson,
)


def test_wilson_matches_the_textbook_values() -> None:
    # 8 of 10: p = 0.8, Wilson 95 % = [0.4902, 0.9433] (Newcombe 1998, table I).
    i = wilson(8, 10)
    assert i.estimate == 0.8
    assert (i.low, i.high) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    # 0 of 10 keeps its lower end at exactly 0: [0, 0.2775].
    i = wilson(0, 10)
    assert i.low == 0.0 and i.high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(10, 10).high == 1.0


def test_wilson_of_nothing_is_undefined() -> None:
    assert all(math.isnan(x) for x in (wilson(0, 0).estimate, wilson(0, 0).low))


# The same examples every run, no time limit on a loaded machine, no .hypothesis/ folder.
@settings(derandomize=True, database=None, deadline=None)
@given(st.integers(1, 500).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_wilson_brackets_the_share(kn: tuple[int, int]) -> None:
    k, n = kn
    i = wilson(k, n)
    assert 0.0 <= i.low <= i.estimate <= i.high <= 1.0


@pytest.mark.parametrize(
    ("fixed", "broken", "p"),
    [
        (0, 0, 1.0),
        (3, 3, 1.0),
        (0, 5, 2 / 32),  # 2 * P(X = 0), X ~ Binomial(5, 1/2)
        (6, 1, 2 * (1 + 7) / 128),  # 2 * P(X <= 1), X ~ Binomial(7, 1/2)
        (10, 2, 2 * (1 + 12 + 66) / 4096),  # 2 * P(X <= 2), X ~ Binomial(12, 1/2)
    ],
)
def test_exact_mcnemar_on_discordant_pairs(fixed: int, broken: int, p: float) -> None:
    assert mcnemar_exact(fixed, broken) == pytest.approx(p)


def test_detectable_change_when_every_pair_is_discordant() -> None:
    # 20 pairs, all discordant: fixes ~ Binomial(20, (1 + change) / 2), and the exact test
    # rejects at 5 fixes or fewer, or 15 or more (2 * P(X <= 5) = 0.041 under no change).
    def power(change: float) -> float:
        share = (1 + change) / 2
        return float(binom.cdf(5, 20, share) + binom.sf(14, 20, share))

    found = mcnemar_detectable_change(20, 1.0)
    assert power(found) >= 0.8 > power(found - 0.005)


def test_no_discordance_detects_nothing() -> None:
    assert math.isnan(mcnemar_detectable_change(144, 0.0))
    assert math.isnan(mcnemar_detectable_change(0, 0.5))


def test_mcnemar_p_is_scipy_s_exact_binomial_test() -> None:
    # intervals.py calls the binomial ufuncs scipy.stats is built on (a private module, to
    # skip scipy.stats' import): a scipy that renamed or changed them must fail here.
    from scipy.stats import binomtest

    from farejudge.comparison.stats.intervals import mcnemar_exact

    splits = [(f, n - f) for n in range(0, 61) for f in range(n + 1)]
    splits += [(10, 300), (4_990, 5_010), (1, 20_000)]
    for fixed, broken in splits:
        n = fixed + broken
        expected = binomtest(min(fixed, broken), n, 0.5).pvalue if n else 1.0
        assert mcnemar_exact(fixed, broken) == pytest.approx(expected, rel=1e-12, abs=1e-300)


# (pairs, discordance, change) from the implementation before issue 19, which summed the
# power one count of discordant pairs at a time with scalar binomial calls.
RECORDED = [
    (1, 1.0, math.nan),
    (5, 0.4, math.nan),
    (10, 0.3, math.nan),
    (20, 1.0, 0.6),
    (20, 0.25, math.nan),
    (30, 0.1, math.nan),
    (50, 0.2, 0.18000000000000002),
    (144, 0.05, math.nan),
    (144, 0.1, 0.07500000000000001),
    (144, 0.3, 0.135),
    (200, 0.5, 0.14500000000000002),
    (500, 0.04, 0.030000000000000002),
    (500, 0.15, 0.049999999999999996),
    (1000, 0.02, 0.015),
    (1000, 0.1, 0.030000000000000002),
    (2000, 0.05, 0.015),
]


@pytest.mark.parametrize(("pairs", "discordance", "change"), RECORDED)
def test_detectable_change_equals_the_recorded_exact_values(
    pairs: int, discordance: float, change: float
) -> None:
    found = mcnemar_detectable_change(pairs, discordance)
    assert found == change or (math.isnan(found) and math.isnan(change))


def test_critical_counts_match_the_definition() -> None:
    counts = np.arange(0, 400)
    found = _critical(counts, 0.05)
    for d, c in zip(counts, found, strict=True):
        below = 2 * binom.cdf(np.arange(d + 1), d, 0.5) <= 0.05
        expected = int(np.nonzero(below)[0][-1]) if d and below.any() else -1
        assert c == expected, d


def test_detectable_change_shrinks_with_more_pairs_and_stays_defined() -> None:
    changes = [mcnemar_detectable_change(n, 0.1) for n in (1_000, 10_000, 100_000)]
    assert changes[0] > changes[1] >= changes[2] > 0
