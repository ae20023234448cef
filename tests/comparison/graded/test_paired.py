"""Two graded scores on the same cases: DeLong against R pROC's roc.test and its pairwise
definition, the detectable AUC change, the paired Brier change and its test."""

import math

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import brier_score_loss, roc_auc_score

from farejudge.comparison.graded.paired import (
    auc_detectable_change,
    delong_components,
    delong_test,
    paired_brier,
)
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.graded_rows import scripted_scores

# R pROC's aSAH data set (Turck et al. 2010, Intensive Care Medicine 36(1):107-115; shipped
# with pROC as data(aSAH)): 113 patients, outcome "Poor" as the positive class (41), and the
# s100b, wfns (an ordinal 1-5 grade: heavy ties) and ndka markers, in the data set's row order.
ASAH_POOR = [
    0, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0,
    0, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 0,
    0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0,
    0,
]  # fmt: skip


ASAH_S100B = [
    0.13, 0.14, 0.1, 0.04, 0.13, 0.1, 0.47, 0.16, 0.18, 0.1, 0.12, 0.1, 0.44, 0.71,
    0.04, 0.08, 0.49, 0.04, 0.07, 0.33, 0.09, 0.09, 0.07, 0.11, 0.07, 0.17, 0.07, 0.11,
    0.13, 0.19, 0.05, 0.16, 0.41, 0.14, 0.34, 0.35, 0.48, 0.09, 0.96, 0.25, 0.5, 0.46,
    0.16, 0.07, 0.43, 0.45, 0.11, 0.08, 0.09, 0.86, 0.52, 0.08, 0.06, 0.13, 2.07, 0.1,
    0.14, 0.15, 0.07, 0.06, 0.77, 0.05, 0.09, 0.3, 0.03, 0.09, 0.04, 0.23, 0.7, 0.09,
    0.27, 0.71, 0.08, 0.26, 0.08, 0.16, 0.09, 0.13, 0.1, 0.08, 0.11, 0.33, 0.11, 0.28,
    0.07, 0.1, 0.32, 0.22, 0.07, 0.05, 0.24, 0.38, 0.1, 0.15, 0.08, 0.14, 0.1, 0.07,
    0.04, 0.19, 0.56, 0.14, 0.58, 0.32, 0.82, 0.74, 0.15, 0.47, 0.17, 0.44, 0.15, 0.5,
    0.48,
]  # fmt: skip


ASAH_WFNS = [
    1, 1, 1, 1, 3, 2, 5, 4, 1, 2, 5, 2, 5, 5, 1, 2, 5, 2, 2, 5, 2, 1, 1, 1, 1, 2, 1, 2,
    1, 1, 3, 4, 2, 1, 4, 5, 4, 1, 4, 2, 5, 5, 1, 1, 2, 4, 1, 1, 2, 5, 5, 2, 1, 2, 5, 1,
    2, 2, 2, 1, 5, 1, 1, 2, 5, 2, 1, 4, 5, 2, 4, 4, 1, 4, 1, 2, 1, 4, 2, 1, 2, 3, 2, 4,
    2, 1, 4, 5, 1, 1, 5, 4, 2, 2, 1, 1, 1, 3, 1, 2, 5, 2, 2, 5, 5, 5, 2, 4, 4, 5, 1, 1,
    1,
]  # fmt: skip


ASAH_NDKA = [
    3.01, 8.54, 8.09, 10.42, 17.4, 12.75, 6.0, 13.2, 15.54, 6.01, 15.96, 17.86, 5.18,
    8.9, 13.41, 20.75, 11.6, 16.11, 32.37, 54.82, 32.41, 49.94, 40.34, 9.47, 6.29,
    12.53, 6.54, 6.3, 80.3, 12.8, 9.8, 9.81, 9.85, 18.21, 5.03, 14.04, 21.93, 8.02,
    7.42, 8.38, 6.59, 9.63, 13.12, 7.96, 14.34, 41.43, 7.63, 7.06, 12.59, 13.56, 3.87,
    9.44, 7.66, 12.98, 419.19, 27.19, 22.27, 9.95, 21.22, 11.73, 10.4, 58.83, 6.39,
    11.09, 12.22, 13.67, 17.21, 22.63, 12.9, 9.7, 21.57, 8.23, 72.57, 15.54, 10.51,
    10.6, 14.57, 5.19, 9.63, 4.61, 21.48, 17.3, 12.71, 9.44, 11.07, 19.46, 10.83, 5.37,
    11.97, 7.75, 9.83, 10.55, 28.49, 8.53, 12.57, 12.9, 46.83, 11.68, 12.67, 9.01, 9.57,
    34.06, 11.72, 14.26, 47.61, 11.67, 24.58, 10.33, 13.87, 15.89, 22.43, 6.79, 13.45,
]  # fmt: skip


# R pROC's own test of roc.test (xrobin/pROC, tests/testthat/test-roc.test.R, "roc.test
# statistic and p are as expected with defaults", at commit 0bc764d2702c): DeLong's test for
# two correlated ROC curves, roc.test(first, second), Z and p for AUC(first) - AUC(second) and
# the 95 % interval of that difference (two long ends shortened to 14 digits here).
PROC_ROC_TEST = [
    ("wfns", "s100b", 2.20898359144091, 0.0271757822291882, 0.0104061769564846, 0.174214419249478),
    ("wfns", "ndka", 2.79777591868904, 0.00514557970691098, 0.0634011709339876, 0.36004056348336),
    ("ndka", "s100b", -1.39077002573558, 0.164295175223054, -0.28769174463419, 0.0488706064228094),
]


ASAH = {"s100b": ASAH_S100B, "wfns": ASAH_WFNS, "ndka": ASAH_NDKA}


@pytest.mark.parametrize(("first", "second", "z", "p", "low", "high"), PROC_ROC_TEST)
def test_delong_matches_r_proc_roc_test_on_asah(
    first: str, second: str, z: float, p: float, low: float, high: float
) -> None:
    gold = np.array(ASAH_POOR, float)
    assert (len(gold), int(gold.sum())) == (113, 41)
    # after - before is AUC(first) - AUC(second): first is "after".
    found = delong_test(gold, np.array(ASAH[second], float), np.array(ASAH[first], float))
    assert found.z == pytest.approx(z, rel=1e-9)
    assert found.p_value == pytest.approx(p, rel=1e-9)
    assert (found.change.low, found.change.high) == pytest.approx((low, high), rel=1e-9)
    assert found.auc_after == pytest.approx(roc_auc_score(gold, ASAH[first]), abs=1e-12)
    assert found.auc_before == pytest.approx(roc_auc_score(gold, ASAH[second]), abs=1e-12)


def test_delong_variance_equals_the_pairwise_definition() -> None:
    """The structural components by their definition, comparing every positive-negative pair."""
    gold, a = scripted_scores("tenths", 8)
    b = np.round(np.clip(a + np.random.default_rng(9).normal(0, 0.2, 144), 0, 1), 1)
    scores = np.vstack([a, b])
    pos, neg = scores[:, gold == 1], scores[:, gold == 0]
    psi = (pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :])
    v_pos, v_neg = psi.mean(axis=2), psi.mean(axis=1)
    expected = np.cov(v_pos) / pos.shape[1] + np.cov(v_neg) / neg.shape[1]
    aucs, cov = delong_components(gold, scores)
    np.testing.assert_allclose(aucs, v_pos.mean(axis=1), atol=1e-12)
    np.testing.assert_allclose(cov, expected, rtol=1e-10)


def test_identical_scores_are_no_change() -> None:
    gold, score = scripted_scores("tenths", 0)
    found = delong_test(gold, score, score.copy())
    assert (found.change.estimate, found.z, found.p_value) == (0.0, 0.0, 1.0)
    assert math.isnan(auc_detectable_change(found.sd))


def test_detectable_auc_change_has_the_power_it_claims() -> None:
    gold = np.array(ASAH_POOR, float)
    sd = delong_test(gold, np.array(ASAH_S100B, float), np.array(ASAH_WFNS, float)).sd
    change = auc_detectable_change(sd)
    z = norm.ppf(0.975)
    # A true change of that size, seen with that deviation, is significant 80 % of the time.
    power = norm.sf(z - change / sd) + norm.cdf(-z - change / sd)
    assert power == pytest.approx(0.8, abs=1e-3)
    assert auc_detectable_change(sd / 2) == pytest.approx(change / 2)


def test_paired_brier_change_and_its_test() -> None:
    gold, before = scripted_scores("continuous", 1)
    after = np.clip(0.5 * before + 0.5 * gold, 0, 1)
    found = paired_brier(gold, before, after, Resampling(300, 0))
    expected = brier_score_loss(gold, after) - brier_score_loss(gold, before)
    assert found.change.estimate == pytest.approx(expected, abs=1e-12)
    assert found.change.high < 0 and found.p_value < 1e-6
    same = paired_brier(gold, before, before.copy(), Resampling(50, 0))
    assert (same.change.estimate, same.p_value) == (0.0, 1.0)
