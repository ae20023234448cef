"""The period's estimate on hand-made inputs: the failure rule, the figures beside the rate,
per category, and every edge giving an answer or one clear error."""

import math

import numpy as np
import pytest

from farejudge.audit.estimate.statistics import (
    FEW_DISAGREEMENTS,
    JudgeOwnRate,
    estimate_by_category,
    estimate_period,
    fill_failures,
)
from farejudge.audit.stats.ppi import ppi_mean
from tests.support.audit_periods import (
    BIASED,
    EXCELLENT,
    FAILING,
    simulate_period,
    uniform_positions,
)


def test_a_failure_predicts_the_judges_rate_over_answered_answers() -> None:
    filled = fill_failures([1.0, 0.0, math.nan, 1.0, math.nan, 0.0])
    assert filled.fill == 0.5
    assert filled.values.tolist() == [1.0, 0.0, 0.5, 1.0, 0.5, 0.0]
    assert filled.failures == 2


def test_the_rule_never_reads_a_label() -> None:
    rng = np.random.default_rng(1)
    period = simulate_period(rng, FAILING, answers=2_000)
    positions = uniform_positions(rng, 2_000, 100)
    labels = period.truth[positions].astype(float)
    found = estimate_period(period.predictions, positions, labels)
    flipped = estimate_period(period.predictions, positions, 1 - labels)
    assert found.failure_fill == flipped.failure_fill == np.nanmean(period.predictions)


def test_the_estimate_is_ppi_over_the_filled_predictions() -> None:
    rng = np.random.default_rng(2)
    period = simulate_period(rng, FAILING, answers=5_000)
    positions = uniform_positions(rng, 5_000, 200)
    labels = period.truth[positions].astype(float)
    found = estimate_period(period.predictions, positions, labels)
    filled = fill_failures(period.predictions).values
    assert found.disagreements >= FEW_DISAGREEMENTS and not found.widened
    assert found.rate == ppi_mean(labels, filled[positions], filled)
    assert found.labels_only.classical == ppi_mean(labels, filled[positions], filled, lam=0.0)
    assert found.effective_labels == pytest.approx(
        200 * found.labels_only.classical.variance / found.rate.variance
    )
    answered = period.predictions[~np.isnan(period.predictions)]
    assert found.judge.interval.estimate == pytest.approx(answered.mean())
    assert found.judge.answered == len(answered)
    assert found.judge.failures == 5_000 - len(answered)
    assert "biased" in JudgeOwnRate.CAVEAT


def test_the_labels_only_intervals_are_scipys_wilson_and_clopper_pearson() -> None:
    predictions = np.array([1.0, 0.0] * 50)
    positions = np.arange(0, 100, 5)
    labels = np.array([1.0] * 4 + [0.0] * 16)
    found = estimate_period(predictions, positions, labels)
    assert found.labels_only.ungrounded == 4 and found.labels_only.labels == 20
    wilson = found.labels_only.wilson()
    exact = found.labels_only.clopper_pearson()
    assert wilson is not None and exact is not None
    # Reference values: Wilson's score interval and the exact beta quantiles for 4 of 20.
    assert (wilson.low, wilson.high) == pytest.approx((0.0807, 0.4160), abs=1e-4)
    assert (exact.low, exact.high) == pytest.approx((0.0573, 0.4366), abs=1e-4)


def test_a_weighted_sample_has_no_binomial_interval() -> None:
    found = estimate_period([1.0, 0.0, 1.0, 0.0], [0, 1, 2], [1.0, 0.0, 0.0], weights=[1, 2, 1])
    assert found.labels_only.wilson() is None and found.labels_only.clopper_pearson() is None


def test_disagreements_count_the_labels_the_verdict_gets_wrong() -> None:
    predictions = [0.9, 0.2, 0.6, math.nan, 0.1]
    found = estimate_period(predictions, [0, 1, 2, 3, 4], [1.0, 1.0, 0.0, 1.0, 0.0])
    # 0.2 misses an ungrounded answer, 0.6 flags a grounded one; the failure counts in neither.
    assert found.disagreements == 2


def test_all_labels_equal_give_a_defined_answer() -> None:
    rng = np.random.default_rng(3)
    period = simulate_period(rng, BIASED, answers=1_000)
    positions = np.arange(100)
    found = estimate_period(period.predictions, positions, np.zeros(100))
    exact = found.labels_only.clopper_pearson()
    assert exact is not None and exact.low == 0 and 0 < exact.high < 0.04
    assert all(math.isfinite(x) for x in (found.rate.estimate, found.rate.se))


def test_a_judge_that_failed_on_everything_leaves_the_labels_alone() -> None:
    predictions = np.full(50, math.nan)
    labels = np.array([1.0, 0.0, 0.0, 1.0, 0.0])
    found = estimate_period(predictions, [0, 1, 2, 3, 4], labels)
    assert found.rate.lam == 0 and found.rate.estimate == pytest.approx(0.4)
    assert math.isnan(found.judge.interval.estimate) and found.judge.failures == 50


@pytest.mark.parametrize(
    ("predictions", "labelled", "labels", "message"),
    [
        ([0.5, 0.5], [], [], "no labels"),
        ([0.5, 0.5], [0], [1.0], "at least 2"),
        ([0.5, 0.5, 0.5], [0, 1], [1.0, 1.5], "labels must lie in \\[0, 1\\]"),
        ([0.5, 0.5, 0.5], [0, 1], [1.0, -0.5], "labels must lie in \\[0, 1\\]"),
        ([0.5, 0.5], [0, 2], [1.0, 0.0], "outside the period's 2 answers"),
        ([0.5, 0.5], [0, 0], [1.0, 0.0], "labelled twice"),
        ([0.5, 0.5], [0, 1, 1], [1.0, 0.0, 1.0], "labelled twice"),
        ([0.5, 1.5], [0, 1], [1.0, 0.0], "predictions must lie in \\[0, 1\\]"),
        ([0.5, 0.5], [0, 1], [1.0], "1 labels but positions"),
        ([0.5, 0.5], [0.0, 1.0], [1.0, 0.0], "positions must be integers"),
    ],
)
def test_bad_input_is_named(
    predictions: list[float], labelled: list[int], labels: list[float], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        estimate_period(predictions, labelled, labels)


def test_each_category_is_estimated_from_its_own_answers_and_labels() -> None:
    rng = np.random.default_rng(4)
    period = simulate_period(rng, FAILING, answers=3_000)
    categories = np.array(["fares", "ages", "documents"])[rng.integers(0, 3, 3_000)]
    categories[-1] = "deadlines"  # one answer, never labelled
    positions = uniform_positions(rng, 2_999, 300)
    labels = period.truth[positions].astype(float)
    found = {
        c.category: c
        for c in estimate_by_category(period.predictions, positions, labels, categories)
    }
    assert list(found) == ["ages", "deadlines", "documents", "fares"]
    assert found["deadlines"].estimate is None and found["deadlines"].population == 1
    filled = fill_failures(period.predictions)
    for name in ("ages", "documents", "fares"):
        members = np.flatnonzero(categories == name)
        inside = np.isin(positions, members)
        own = found[name]
        assert own.population == len(members) and own.labels == int(inside.sum())
        expected = ppi_mean(
            labels[inside], filled.values[positions[inside]], filled.values[members]
        )
        assert own.estimate is not None
        if own.estimate.widened:
            assert own.estimate.rate.estimate == expected.estimate
            assert own.estimate.rate.se > expected.se
        else:
            assert own.estimate.rate == expected
        # The period's fill, not the category's own.
        assert own.estimate.failure_fill == filled.fill


def test_a_category_with_one_label_has_no_estimate() -> None:
    found = estimate_by_category([1.0, 0.0, 1.0], [0, 1, 2], [1.0, 0.0, 1.0], ["a", "a", "b"])
    assert [(c.category, c.labels, c.estimate is None) for c in found] == [
        ("a", 2, False),
        ("b", 1, True),
    ]


def test_categories_must_name_every_answer() -> None:
    with pytest.raises(ValueError, match="2 categories for 3 answers"):
        estimate_by_category([1.0, 0.0, 1.0], [0, 1], [1.0, 0.0], ["a", "b"])


def test_few_disagreements_widen_the_interval_by_half_a_disagreement_of_each_kind() -> None:
    rng = np.random.default_rng(3)
    period = simulate_period(rng, EXCELLENT, answers=5_000)
    positions = uniform_positions(rng, 5_000, 200)
    labels = period.truth[positions].astype(float)
    found = estimate_period(period.predictions, positions, labels)
    plain = ppi_mean(labels, period.predictions[positions], period.predictions)
    assert found.disagreements < FEW_DISAGREEMENTS and found.widened
    assert found.rate.estimate == plain.estimate and found.rate.lam == plain.lam
    # By hand: the rectifier's values with a half-weighted 1 and -lambda beside them.
    rectifier = labels - plain.lam * period.predictions[positions]
    values = np.append(rectifier, [1.0, -plain.lam])
    counts = np.append(np.ones(200), [0.5, 0.5])
    mean = np.sum(values * counts) / counts.sum()
    padded = np.sum(counts * (values - mean) ** 2) / counts.sum()
    imputed = np.var(plain.lam * period.predictions) / 5_000
    assert found.rate.se == pytest.approx(math.sqrt(imputed + padded / 200), rel=1e-12)
    assert found.rate.se > plain.se
    assert found.rate.interval.low == pytest.approx(plain.estimate - 1.959964 * found.rate.se)
