"""The bootstrap's case resamples: seeded, the same at any chunk size, and the percentile
interval they give."""

import math

import numpy as np
import pytest

from farejudge.comparison.stats.bootstrap import Resampling, bootstrap, resampled_totals
from farejudge.comparison.stats.intervals import (
    Interval,
)


def _mean(t: np.ndarray) -> float:
    return float(t[0] / t[1])


def test_bootstrap_is_seeded_and_close_to_the_normal_interval() -> None:
    # 30 ones in 100: standard error sqrt(.3 * .7 / 100) = 0.0458, so about ±0.09.
    rows = np.column_stack([np.r_[np.ones(30), np.zeros(70)], np.ones(100)])
    first = bootstrap(rows, _mean, Resampling(4000, 7))
    assert first == bootstrap(rows, _mean, Resampling(4000, 7))
    assert first.estimate == pytest.approx(0.3)
    assert first.low == pytest.approx(0.3 - 0.0898, abs=0.02)
    assert first.high == pytest.approx(0.3 + 0.0898, abs=0.02)


def test_bootstrap_draws_depend_on_the_seed() -> None:
    values = np.linspace(0.0, 1.0, 37) ** 2
    rows = np.column_stack([values, np.ones(len(values))])
    assert bootstrap(rows, _mean, Resampling(500, 1)) != bootstrap(rows, _mean, Resampling(500, 2))


def test_bootstrap_of_a_constant_is_the_constant() -> None:
    rows = np.column_stack([np.full(20, 0.5), np.ones(20)])
    assert bootstrap(rows, _mean, Resampling(200, 0)) == Interval(0.5, 0.5, 0.5)


def test_bootstrap_of_an_undefined_figure_has_no_interval() -> None:
    rows = np.zeros((5, 2))
    i = bootstrap(rows, lambda t: float("nan"), Resampling(50, 0))
    assert math.isnan(i.estimate) and math.isnan(i.low)


def _all_at_once(rows: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The totals as drawn before chunking: one (resamples x n) weight matrix."""
    n = len(rows)
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offsets = (draws + n * np.arange(resamples)[:, None]).ravel()
    weights = np.bincount(offsets, minlength=resamples * n).reshape(resamples, n)
    return np.asarray(weights @ rows, dtype=float)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000, None])
def test_resampled_totals_do_not_depend_on_the_chunk_size(chunk: int | None) -> None:
    rows = np.random.default_rng(5).random((53, 3))
    found = resampled_totals(rows, Resampling(300, 11), chunk=chunk)
    assert found.shape == (300, 3)
    np.testing.assert_allclose(found, _all_at_once(rows, 300, 11), rtol=1e-12)


def test_the_bootstrap_is_the_one_over_all_resamples_at_once() -> None:
    rows = np.column_stack([np.r_[np.ones(30), np.zeros(70)], np.ones(100)])
    values = [t[0] / t[1] for t in _all_at_once(rows, 400, 3)]
    low, high = np.percentile(values, [2.5, 97.5])
    found = bootstrap(rows, lambda t: float(t[0] / t[1]), Resampling(400, 3))
    assert (found.low, found.high) == pytest.approx((low, high), rel=1e-12)
