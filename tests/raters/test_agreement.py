"""Agreement among annotators: Krippendorff's alpha against the `krippendorff` package,
Cohen's kappa against scikit-learn, Fleiss' kappa against statsmodels, and the bootstrap
interval of alpha."""

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_fleiss

from farejudge.raters import (
    agreement,
    agreement_with_rest,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    krippendorff_alpha_interval,
    pairwise_kappa,
)
from tests.support.raters import annotators, missing_at_random


def _reference_alpha(labels: np.ndarray) -> float:
    return float(krippendorff.alpha(reliability_data=labels.T, level_of_measurement="nominal"))


def _varied(labels: np.ndarray) -> bool:
    """Two or more values on items two annotators labelled: the package's alpha is defined."""
    pairable = labels[(~np.isnan(labels)).sum(axis=1) >= 2]
    return len(np.unique(pairable[~np.isnan(pairable)])) >= 2


def test_alpha_equals_the_krippendorff_package_over_random_matrices() -> None:
    rng = np.random.default_rng(20261207)
    compared = 0
    worst = 0.0
    for _ in range(400):
        items, raters = int(rng.integers(2, 60)), int(rng.integers(2, 8))
        labels = rng.integers(0, 2, size=(items, raters)).astype(float)
        labels[rng.random(labels.shape) < rng.uniform(0, 0.6)] = np.nan
        if not _varied(labels):
            continue
        worst = max(worst, abs(krippendorff_alpha(labels) - _reference_alpha(labels)))
        compared += 1
    print(f"alpha against krippendorff 0.9.0: {compared} matrices, largest difference {worst:.1e}")
    assert compared > 350
    assert worst <= 1e-9


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        float,
        st.tuples(st.integers(2, 30), st.integers(2, 6)),
        elements=st.sampled_from([0.0, 1.0, 2.0, math.nan]),
    )
)
def test_alpha_equals_the_package_on_any_nominal_matrix(labels: np.ndarray) -> None:
    if _varied(labels):
        assert krippendorff_alpha(labels) == pytest.approx(_reference_alpha(labels), abs=1e-9)
    else:
        assert math.isnan(krippendorff_alpha(labels))


def test_alpha_of_perfect_and_of_systematic_disagreement() -> None:
    agreeing = np.array([[1, 1, 1], [0, 0, np.nan], [1, np.nan, 1], [0, 0, 0]], dtype=float)
    assert krippendorff_alpha(agreeing) == 1.0
    # Two annotators who always disagree: alpha is below 0 (worse than chance).
    opposed = np.array([[0, 1], [1, 0], [0, 1], [1, 0]], dtype=float)
    assert krippendorff_alpha(opposed) < 0


def test_alpha_interval_is_seeded_and_narrows_with_items() -> None:
    rng = np.random.default_rng(3)
    quality = np.full(4, 0.85)
    small = missing_at_random(annotators(rng, 60, quality, quality, 0.4).labels, 0.2, rng, 2)
    large = missing_at_random(annotators(rng, 600, quality, quality, 0.4).labels, 0.2, rng, 2)
    first = krippendorff_alpha_interval(small, resamples=1000, seed=5)
    assert first == krippendorff_alpha_interval(small, resamples=1000, seed=5)
    assert first != krippendorff_alpha_interval(small, resamples=1000, seed=6)
    assert first.estimate == krippendorff_alpha(small)
    assert first.low < first.estimate < first.high
    wide = krippendorff_alpha_interval(large, resamples=1000, seed=5)
    assert (wide.high - wide.low) < (first.high - first.low) / 2


def test_alpha_interval_covers_the_population_alpha() -> None:
    # Annotators right 85 % of the time on balanced items: their alpha, found on a very large
    # sample, is covered by the 95 % interval of 200 items in most of 60 draws.
    quality = np.full(3, 0.85)
    rng = np.random.default_rng(11)
    population = krippendorff_alpha(annotators(rng, 200_000, quality, quality, 0.5).labels)
    covered = 0
    for draw in range(60):
        labels = annotators(rng, 200, quality, quality, 0.5).labels
        interval = krippendorff_alpha_interval(labels, resamples=400, seed=draw)
        covered += interval.low <= population <= interval.high
    print(f"alpha {population:.3f}: covered by {covered} of 60 intervals over 200 items")
    assert covered >= 51


def test_alpha_is_undefined_without_two_values() -> None:
    assert math.isnan(krippendorff_alpha(np.array([[1.0, 1.0], [1.0, np.nan]])))
    assert math.isnan(krippendorff_alpha(np.array([[1.0, np.nan], [np.nan, 0.0]])))
    interval = krippendorff_alpha_interval(np.array([[1.0, np.nan], [np.nan, 0.0]]))
    assert math.isnan(interval.estimate) and math.isnan(interval.low)


def test_cohen_kappa_equals_scikit_learn_on_the_shared_items() -> None:
    rng = np.random.default_rng(8)
    for _ in range(200):
        first = rng.integers(0, 2, 40).astype(float)
        second = np.where(rng.random(40) < 0.7, first, 1 - first)
        first[rng.random(40) < 0.2] = np.nan
        second[rng.random(40) < 0.2] = np.nan
        shared = ~np.isnan(first) & ~np.isnan(second)
        if len(np.unique(np.r_[first[shared], second[shared]])) < 2:
            continue
        expected = cohen_kappa_score(first[shared], second[shared])
        assert cohen_kappa(first, second) == pytest.approx(expected, abs=1e-12)


def test_cohen_kappa_is_undefined_on_one_label_or_no_shared_item() -> None:
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    assert math.isnan(cohen_kappa([1, np.nan], [np.nan, 0]))


def test_pairwise_kappa_and_each_annotators_agreement_with_the_rest() -> None:
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 2, 300)
    good = np.where(rng.random((300, 3)) < 0.95, truth[:, None], 1 - truth[:, None])
    random_guesser = rng.integers(0, 2, (300, 1))
    labels = np.hstack([good, random_guesser]).astype(float)
    kappas = pairwise_kappa(labels)
    assert np.isnan(np.diag(kappas)).all()
    np.testing.assert_array_equal(kappas, kappas.T)
    assert kappas[0, 1] == pytest.approx(cohen_kappa_score(labels[:, 0], labels[:, 1]))
    rest = agreement_with_rest(labels)
    assert rest[3] == pytest.approx(np.mean(kappas[3, :3]))
    # The guesser agrees with the rest at about chance; each good annotator agrees with two
    # of its three others at about 0.8.
    assert abs(rest[3]) < 0.15
    assert (rest[:3] > 0.45).all()


def test_fleiss_kappa_equals_statsmodels_where_every_item_has_as_many_raters() -> None:
    rng = np.random.default_rng(9)
    for _ in range(100):
        items, raters = int(rng.integers(5, 80)), int(rng.integers(2, 7))
        labels = rng.integers(0, 2, size=(items, raters)).astype(float)
        labels[rng.random(labels.shape) < 0.3] = np.nan
        # As many raters on every item, whoever they are: each row's labels moved left.
        complete = np.sort(labels, axis=1)[:, : max(2, raters - 2)]
        complete = np.where(np.isnan(complete), rng.integers(0, 2, complete.shape), complete)
        if len(np.unique(complete)) < 2:
            continue
        table, _ = aggregate_raters(complete.astype(int))
        expected = statsmodels_fleiss(table, method="fleiss")
        assert fleiss_kappa(complete) == pytest.approx(expected, abs=1e-12)


def test_fleiss_kappa_is_none_where_items_have_different_numbers_of_raters() -> None:
    assert fleiss_kappa(np.array([[1, 0, 1], [1, np.nan, 1]], dtype=float)) is None
    one_label = fleiss_kappa(np.ones((4, 3)))
    assert one_label is not None and math.isnan(one_label)


def test_agreement_gathers_every_figure() -> None:
    rng = np.random.default_rng(2)
    quality = np.full(3, 0.9)
    labels = annotators(rng, 80, quality, quality, 0.4).labels
    found = agreement(labels, resamples=500, seed=1)
    assert found.alpha == krippendorff_alpha_interval(labels, resamples=500, seed=1)
    np.testing.assert_array_equal(found.pairwise_kappa, pairwise_kappa(labels))
    np.testing.assert_allclose(found.with_rest, agreement_with_rest(labels))
    assert found.fleiss_kappa == fleiss_kappa(labels)


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (np.zeros(4), "matrix of items by annotators"),
        (np.array([[0.0, np.inf]]), "finite or NaN"),
    ],
)
def test_bad_matrices_are_refused(labels: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(labels)
