"""The comparison's statistics on small tables worked out by hand."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from farejudge.comparison.figures import build_report
from farejudge.comparison.stats.intervals import (
    Interval,
    bootstrap,
    mcnemar_detectable_change,
    mcnemar_exact,
    wilson,
)
from tests.support.frame_rows import row, runs


def _mean(t: np.ndarray) -> float:
    return float(t[0] / t[1])


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


def test_bootstrap_is_seeded_and_close_to_the_normal_interval() -> None:
    # 30 ones in 100: standard error sqrt(.3 * .7 / 100) = 0.0458, so about ±0.09.
    rows = np.column_stack([np.r_[np.ones(30), np.zeros(70)], np.ones(100)])
    first = bootstrap(rows, _mean, resamples=4000, seed=7)
    assert first == bootstrap(rows, _mean, resamples=4000, seed=7)
    assert first.estimate == pytest.approx(0.3)
    assert first.low == pytest.approx(0.3 - 0.0898, abs=0.02)
    assert first.high == pytest.approx(0.3 + 0.0898, abs=0.02)


def test_bootstrap_draws_depend_on_the_seed() -> None:
    values = np.linspace(0.0, 1.0, 37) ** 2
    rows = np.column_stack([values, np.ones(len(values))])
    assert bootstrap(rows, _mean, 500, seed=1) != bootstrap(rows, _mean, 500, seed=2)


def test_bootstrap_of_a_constant_is_the_constant() -> None:
    rows = np.column_stack([np.full(20, 0.5), np.ones(20)])
    assert bootstrap(rows, _mean, resamples=200, seed=0) == Interval(0.5, 0.5, 0.5)


def test_bootstrap_of_an_undefined_figure_has_no_interval() -> None:
    rows = np.zeros((5, 2))
    i = bootstrap(rows, lambda t: float("nan"), resamples=50, seed=0)
    assert math.isnan(i.estimate) and math.isnan(i.low)


def test_kappa_and_accuracy_on_a_hand_table() -> None:
    # TP 20, FN 5, FP 10, TN 15: accuracy 35/50 = 0.7; chance agreement
    # 0.5 * 0.6 + 0.5 * 0.4 = 0.5, so kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    cells = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    rows = [row(f"c-{i}", g, j) for i, (g, j) in enumerate(cells)]
    (s,) = build_report(runs(rows), resamples=500, seed=0).summaries
    assert s.accuracy.estimate == pytest.approx(0.7)
    assert (s.accuracy.low, s.accuracy.high) == pytest.approx(
        (wilson(35, 50).low, wilson(35, 50).high)
    )
    assert s.kappa.estimate == pytest.approx(0.4)
    assert s.kappa.low < 0.4 < s.kappa.high
    assert s.precision.estimate == pytest.approx(20 / 30)
    assert s.recall.estimate == pytest.approx(20 / 25)
    assert s.balanced_accuracy.estimate == pytest.approx((0.8 + 0.6) / 2)
    assert s.f1.estimate == pytest.approx(40 / 55)


def test_a_judge_failure_is_wrong_and_counted_apart() -> None:
    rows = [row("a-1", 1, 1), row("a-2", 0, 0), row("a-3", 1, 0, failure=1)]
    report = build_report(runs(rows), resamples=100, seed=0)
    (s,) = report.summaries
    assert s.failures == 1
    assert s.accuracy.estimate == pytest.approx(2 / 3)
    assert s.failure_rate.estimate == pytest.approx(1 / 3)
    # The confusion-table figures are over answered cases only.
    assert s.kappa.estimate == 1.0
    (c,) = report.confusions
    assert (c.tp, c.fn, c.fp, c.tn, c.failed_ungrounded, c.failed_grounded) == (1, 0, 0, 1, 1, 0)


def test_epochs_are_shares_of_one_case() -> None:
    # b-1 agrees in 2 of 3 epochs (right, unstable); b-2 in 1 of 3 (wrong, unstable).
    rows = [row("b-1", 1, j, epoch=e) for e, j in enumerate([1, 1, 0], start=1)] + [
        row("b-2", 0, j, epoch=e) for e, j in enumerate([1, 0, 1], start=1)
    ]
    report = build_report(runs(rows), resamples=100, seed=0)
    (s,) = report.summaries
    assert (s.cases, s.case_epochs) == (2, 6)
    assert s.accuracy.estimate == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert {c.case: c.verdicts for c in report.unstable_cases} == {
        "b-1": {"ungrounded": 2, "grounded": 1},
        "b-2": {"ungrounded": 2, "grounded": 1},
    }
    (stab,) = report.stability
    assert stab.unstable.estimate == 1.0
    assert stab.consistency.estimate == pytest.approx(2 / 3)


def test_flips_between_versions_with_mcnemar() -> None:
    # v1 → v2: d-1 and d-2 fixed, d-3 broken, d-4 right on both.
    v1 = [row("d-1", 1, 0), row("d-2", 0, 1), row("d-3", 1, 1), row("d-4", 0, 0)]
    v2 = [
        row("d-1", 1, 1, "v2"),
        row("d-2", 0, 0, "v2"),
        row("d-3", 1, 0, "v2"),
        row("d-4", 0, 0, "v2"),
    ]
    (t,) = build_report(runs(v1 + v2), resamples=200, seed=0).transitions
    assert [f.case for f in t.fixed] == ["d-1", "d-2"]
    assert [(f.case, f.before, f.after) for f in t.broken] == [("d-3", "ungrounded", "grounded")]
    assert t.p_value == pytest.approx(mcnemar_exact(2, 1)) and t.p_value == 1.0
    assert t.accuracy_change.estimate == pytest.approx(0.25)


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
