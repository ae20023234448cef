"""One judge's threshold: a 20-case example against a hand computation, the best alpha and the
gold cases needed against their definitions, and a floor judge on a gold set of the shipped
size, which must be told it gets no guarantee."""

import math

import numpy as np
import pytest
from scipy.stats import beta, binom

from farejudge.comparison.escalation.threshold import GRID, calibrate
from farejudge.scorers.escalation import decides
from tests.support.graded_judges import floor_judge

# The 20-case example. Nineteen graded cases, one confidence each on the default grid (two tied
# at 0.8), listed from the most confident down; the judge is wrong only on the twelfth (0.75);
# the twentieth case is a judge failure (no verdict, no confidence).
HAND_CONFIDENCE = [1.0, 0.975, 0.95, 0.925, 0.9, 0.875, 0.85, 0.825, 0.8, 0.8]
HAND_CONFIDENCE += [0.775, 0.75, 0.725, 0.7, 0.675, 0.65, 0.625, 0.6, 0.575, math.nan]
HAND_WRONG = [i == 11 for i in range(20)]


def hand_example() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Verdict, confidence and gold of the 20 cases, in a shuffled order (the calibration must
    not depend on the order it is given the cases in)."""
    gold = np.array([1.0, 0.0] * 10)
    verdict = np.where(HAND_WRONG, 1 - gold, gold)
    verdict[19] = math.nan
    order = np.random.default_rng(20).permutation(20)
    return verdict[order], np.array(HAND_CONFIDENCE)[order], gold[order]


def test_the_threshold_p_values_and_coverage_equal_a_hand_computation() -> None:
    """alpha = delta = 0.2, tests opening at 8 decided cases. By hand, from the list above:

    - The fewest cases that can reject at all: 0.8^7 = 0.210 > 0.2 >= 0.8^8 = 0.168, so 8; the
      sequence opens on the strictest grid threshold deciding 8 or more: 0.825 (8 cases).
    - 0.825: 8 decided, 0 wrong, p = P(Bin(8, 0.2) <= 0) = 0.8^8 = 0.1678 <= 0.2: rejected.
    - 0.8: 10 decided (the tie), 0 wrong, p = 0.8^10 = 0.1074: rejected.
    - 0.775: 11 decided, 0 wrong, p = 0.8^11 = 0.0859: rejected.
    - 0.75: 12 decided, 1 wrong, p = 0.8^12 + 12 (0.2) 0.8^11 = 0.2749 > 0.2: not rejected, stop.
    - So the threshold is 0.775: 11 of the 20 cases decided alone (the failure is one of the 9
      escalated), all 11 right. The looser thresholds are never tested: at 0.575 (19 decided,
      1 wrong) p = 0.8^19 + 19 (0.2) 0.8^18 = 0.0829 would reject, but the sequence stopped.
    """
    verdict, confidence, gold = hand_example()
    result = calibrate(verdict, confidence, gold, alpha=0.2, delta=0.2, min_decided=8)

    hand = [(0.825, 8, 0), (0.8, 10, 0), (0.775, 11, 0), (0.75, 12, 1)]
    hand_p = [binom.cdf(errors, decided, 0.2) for _, decided, errors in hand]
    assert hand_p == pytest.approx([0.8**8, 0.8**10, 0.8**11, 0.8**12 + 12 * 0.2 * 0.8**11])
    tests = [(t.threshold, t.decided, t.errors) for t in result.tests]
    print(f"\n20-case example: tested {tests}")
    print(f"  p-values {[round(t.p_value, 4) for t in result.tests]} (hand {np.round(hand_p, 4)})")
    assert tests == hand
    assert [t.p_value for t in result.tests] == pytest.approx(hand_p, rel=1e-12)
    assert [t.rejected for t in result.tests] == [True, True, True, False]
    assert result.first_decided == 8
    assert result.threshold == 0.775
    assert binom.cdf(1, 19, 0.2) < 0.2  # the looser threshold that would pass, never tested

    # Coverage: 11 of 20, with the exact interval's Beta quantiles by hand.
    low, high = beta.ppf(0.025, 11, 10), beta.ppf(0.975, 12, 9)
    shown = f"{result.coverage.estimate} [{low:.4f}, {high:.4f}]"
    print(f"  threshold {result.threshold}, coverage {shown}")
    assert (result.decided, result.cases, result.failures) == (11, 20, 1)
    assert result.coverage.estimate == 11 / 20
    assert (result.coverage.low, result.coverage.high) == pytest.approx((low, high), rel=1e-9)
    assert result.agreement == 1.0
    assert result.guaranteed_agreement == pytest.approx(0.8)
    assert result.needed is None


def test_with_no_threshold_the_best_alpha_and_the_cases_needed_equal_their_definitions() -> None:
    """The same 20 cases at alpha = 0.1 (delta 0.2): by hand.

    - The fewest cases that can reject at alpha 0.1: 0.9^15 = 0.206 > 0.2 >= 0.9^16 = 0.185, so
      16; the sequence opens on 0.65 (16 decided, 1 wrong): p = P(Bin(16, 0.1) <= 1) = 0.515.
      Not rejected: no threshold.
    - Best alpha: at a looser alpha the sequence opens on a stricter threshold. With 11 cases
      (0.775, none wrong) it rejects for alpha >= 1 - 0.2^(1/11) = 0.1361, and 11 cases are
      enough to open on for any alpha >= that same value. With 12 to 19 cases there is one
      error, and its exact bound (0.2 or more) is above where those thresholds open. So the
      best alpha is 1 - 0.2^(1/11): just above it a threshold is found, just below none.
    - Cases needed at alpha 0.1: at 0.65 the judge decided 16 of 20 with 1 error. With N cases:
      floor(16 N / 20) decided, ceil(decided / 16) errors; the first N whose exact test
      rejects at 0.2, counted here one N at a time with scipy's binomial.
    """
    verdict, confidence, gold = hand_example()
    result = calibrate(verdict, confidence, gold, alpha=0.1, delta=0.2, min_decided=8)

    assert result.threshold is None
    assert result.guaranteed_agreement is None
    assert result.decided == 0 and result.coverage.estimate == 0
    assert result.first_decided == 16
    assert [(t.threshold, t.decided, t.errors) for t in result.tests] == [(0.65, 16, 1)]
    assert result.tests[0].p_value == pytest.approx(binom.cdf(1, 16, 0.1))

    hand_alpha = 1 - 0.2 ** (1 / 11)
    assert result.best_alpha == pytest.approx(hand_alpha, rel=1e-12)
    found = calibrate(verdict, confidence, gold, hand_alpha + 1e-9, 0.2, min_decided=8)
    missed = calibrate(verdict, confidence, gold, hand_alpha - 1e-9, 0.2, min_decided=8)
    assert found.threshold == 0.775 and missed.threshold is None

    counted = next(
        n
        for n in range(1, 10_000)
        if (m := 16 * n // 20) and binom.cdf(math.ceil(m / 16), m, 0.1) <= 0.2
    )
    print(f"\n20 cases at alpha 0.1: best alpha {result.best_alpha:.4f} (hand {hand_alpha:.4f})")
    print(f"  cases needed {result.needed and result.needed.cases} (counted {counted})")
    assert result.needed is not None
    assert (result.needed.threshold, result.needed.decided, result.needed.errors) == (0.65, 16, 1)
    assert result.needed.cases == counted


@pytest.mark.parametrize("signal", [False, True], ids=["no signal", "a little signal"])
def test_too_few_cases_claims_no_guarantee_and_says_what_would_do(signal: bool) -> None:
    verdict, confidence, gold = floor_judge(signal)
    assert (verdict == gold).mean() == pytest.approx(63 / 144)
    result = calibrate(verdict, confidence, gold, alpha=0.1, delta=0.1)

    first = result.tests[0]
    print(
        f"\nfloor judge, 144 cases ({'a little signal' if signal else 'no signal'}): "
        f"threshold {result.threshold}; opened on {first.threshold} ({first.decided} decided, "
        f"{first.errors} wrong, p = {first.p_value:.3f}); best alpha {result.best_alpha:.4f} "
        f"(agreement {1 - (result.best_alpha or 1):.1%}); cases needed at alpha 0.1: "
        f"{result.needed and result.needed.cases}"
    )
    assert result.threshold is None
    assert result.guaranteed_agreement is None
    assert result.decided == 0
    assert len(result.tests) == 1 and not first.rejected
    assert result.best_alpha is not None and result.best_alpha > 0.1
    # The best alpha is one the procedure finds a threshold at, and no smaller one is.
    assert calibrate(verdict, confidence, gold, result.best_alpha + 1e-9, 0.1).threshold
    assert calibrate(verdict, confidence, gold, result.best_alpha - 1e-9, 0.1).threshold is None
    needed = result.needed
    assert needed is not None and needed.threshold == first.threshold
    if not signal:
        # Wrong on more than alpha of what it is surest of: no number of cases would do.
        assert needed.errors / needed.decided > 0.1 and needed.cases is None
        return
    assert (first.threshold, first.decided, first.errors) == (0.975, 30, 2)
    # The best alpha is that first threshold's exact (Clopper-Pearson) upper bound at 90 %.
    assert result.best_alpha == pytest.approx(beta.ppf(0.9, 3, 28), rel=1e-9)
    counted = next(
        n
        for n in range(1, 100_000)
        if (m := 30 * n // 144) and binom.cdf(math.ceil(2 * m / 30), m, 0.1) <= 0.1
    )
    assert needed.cases == counted


def test_a_judge_failure_is_never_decided_alone() -> None:
    gold = np.array([1.0, 0.0] * 50)
    verdict = gold.copy()
    verdict[:10] = math.nan  # failures, whatever confidence came with them
    confidence = np.full(100, 0.99)
    result = calibrate(verdict, confidence, gold, alpha=0.1, delta=0.1)
    assert result.threshold == 0.975
    assert (result.decided, result.failures) == (90, 10)
    assert not decides(verdict, confidence, result.threshold)[:10].any()
    assert decides(verdict, confidence, None).sum() == 0


def test_the_default_grid_is_fixed_from_one_half_to_one() -> None:
    assert GRID[0] == 0.5 and GRID[-1] == 1.0 and len(GRID) == 21
    assert np.diff(GRID) == pytest.approx(np.full(20, 0.025))
