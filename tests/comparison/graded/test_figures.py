"""A run's graded figures against scikit-learn and hand counts: AUC, average precision,
Brier, the curves, review budgets, the cut-off for a target recall, calibration."""

import dataclasses
import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, brier_score_loss, roc_auc_score

from farejudge.comparison.graded import figures
from farejudge.comparison.graded.figures import graded_figures
from farejudge.comparison.stats import bootstrap
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.graded_rows import scripted_scores

KINDS = ["continuous", "tenths", "three epochs", "verdict", "constant"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_auc_average_precision_and_brier_are_scikit_learns(kind: str, seed: int) -> None:
    gold, score = scripted_scores(kind, seed)
    f = graded_figures(gold, score, Resampling(50, 0))
    assert f.auc.estimate == pytest.approx(roc_auc_score(gold, score), abs=1e-9)
    assert f.average_precision.estimate == pytest.approx(
        average_precision_score(gold, score), abs=1e-9
    )
    assert f.brier.estimate == pytest.approx(brier_score_loss(gold, score), abs=1e-9)


@pytest.mark.parametrize("kind", KINDS[:3])
def test_the_curves_are_scikit_learns(kind: str) -> None:
    from sklearn.metrics import precision_recall_curve, roc_curve

    gold, score = scripted_scores(kind, 3)
    curves = graded_figures(gold, score, Resampling(10, 0)).curves
    fpr, tpr, _ = roc_curve(gold, score, drop_intermediate=False)
    np.testing.assert_allclose(curves.false_positive_rate, fpr, atol=1e-12)
    np.testing.assert_allclose(curves.true_positive_rate, tpr, atol=1e-12)
    precision, recall, _ = precision_recall_curve(gold, score)
    # scikit-learn lists them lowest threshold first and appends the (recall 0, precision 1) end.
    np.testing.assert_allclose(curves.precision, precision[:-1][::-1], atol=1e-12)
    np.testing.assert_allclose(curves.recall, recall[:-1][::-1], atol=1e-12)


# Ten cases by descending score; ungrounded at ranks 1, 3, 4 and 7 (four of ten).
_RANKED_GOLD = [1, 0, 1, 1, 0, 0, 1, 0, 0, 0]


_RANKED_SCORE = [0.95, 0.85, 0.75, 0.65, 0.55, 0.45, 0.35, 0.25, 0.15, 0.05]


def _shuffled() -> tuple[np.ndarray, np.ndarray]:
    order = np.random.default_rng(7).permutation(10)
    return np.array(_RANKED_GOLD, float)[order], np.array(_RANKED_SCORE)[order]


def test_recall_and_precision_at_each_budget_are_the_hand_count() -> None:
    gold, score = _shuffled()
    budgets = graded_figures(gold, score, Resampling(20, 0)).budgets
    # 10 % of 10 answers: rank 1 (ungrounded). 20 %: ranks 1-2. 30 %: ranks 1-3 (two caught).
    assert [(b.share, b.reviewed) for b in budgets] == [(0.1, 1), (0.2, 2), (0.3, 3)]
    assert [b.recall.estimate for b in budgets] == pytest.approx([1 / 4, 1 / 4, 2 / 4])
    assert [b.precision.estimate for b in budgets] == pytest.approx([1 / 1, 1 / 2, 2 / 3])


def test_a_budget_cutting_through_tied_scores_takes_them_pro_rata() -> None:
    gold = np.array([0, 1, 1, 0, 1], float)
    score = np.array([0.9, 0.5, 0.5, 0.5, 0.1])
    # 30 % of 5 answers, rounded up: 2. The 0.9 one, then one of three tied at 0.5, two of
    # them ungrounded: 2/3 of an ungrounded answer expected.
    (budget,) = graded_figures(gold, score, Resampling(20, 0), budgets=(0.3,)).budgets
    assert budget.reviewed == 2
    assert budget.recall.estimate == pytest.approx((2 / 3) / 3)
    assert budget.precision.estimate == pytest.approx((2 / 3) / 2)


@pytest.mark.parametrize(
    ("target", "threshold", "share"),
    [(0.75, 0.65, 0.4), (0.5, 0.75, 0.3), (1.0, 0.35, 0.7), (0.2, 0.95, 0.1)],
)
def test_the_cut_off_for_a_target_recall_is_the_hand_count(
    target: float, threshold: float, share: float
) -> None:
    gold, score = _shuffled()
    found = graded_figures(gold, score, Resampling(20, 0), target_recall=target).target_recall
    assert found.threshold == pytest.approx(threshold)
    assert found.review_share.estimate == pytest.approx(share)


def test_the_cut_off_flags_every_tied_case() -> None:
    gold = np.array([1, 0, 1, 0], float)
    score = np.array([0.8, 0.8, 0.8, 0.2])
    found = graded_figures(gold, score, Resampling(20, 0), target_recall=0.5).target_recall
    assert found.threshold == 0.8
    assert found.review_share.estimate == pytest.approx(0.75)


def test_calibration_table_and_expected_calibration_error_by_hand() -> None:
    gold = np.array([0, 1, 1, 1, 0, 1], float)
    score = np.array([0.05, 0.05, 0.95, 1.0, 0.1, 0.15])
    f = graded_figures(gold, score, Resampling(20, 0))
    bins = {round(b.low, 1): b for b in f.calibration if b.count}
    # 1.0 falls in the top bin, 0.1 in the second: bins are [low, high), the last one closed.
    assert {k: b.count for k, b in bins.items()} == {0.0: 2, 0.1: 2, 0.9: 2}
    assert bins[0.9].mean_predicted == pytest.approx(0.975)
    assert [bins[k].observed.estimate for k in (0.0, 0.1, 0.9)] == [0.5, 0.5, 1.0]
    # ECE: 2/6 * |0.05 - 0.5| + 2/6 * |0.125 - 0.5| + 2/6 * |0.975 - 1|
    assert f.ece.estimate == pytest.approx((0.45 + 0.375 + 0.025) / 3)


def _leaves(value: object, path: str = "") -> dict[str, object]:
    """Every number and string in a figures object, by its path."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {
            k: v for name, item in value.items() for k, v in _leaves(item, f"{path}.{name}").items()
        }
    if isinstance(value, list | tuple):
        return {
            k: v for i, item in enumerate(value) for k, v in _leaves(item, f"{path}[{i}]").items()
        }
    return {path: value}


# The same case weights, drawn from one stream, at any block size; but the totals are a BLAS
# matrix product (weights @ rows), whose summation order depends on the block's shape and on
# the CPU's kernel (OpenBLAS's SkylakeX and Sandybridge kernels sum a 7-row block and a
# 300-row block differently; Haswell's happen to agree). So the figures agree to rounding,
# a few units in the 16th digit, not bit for bit: 1e-12 is far below any digit a report shows.
TOLERANCE = 1e-12


def test_intervals_do_not_depend_on_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    gold, score = scripted_scores("tenths", 4)
    whole = _leaves(graded_figures(gold, score, Resampling(300, 5)))
    monkeypatch.setattr(bootstrap, "CHUNK_DRAWS", 144 * 7)
    blocks = _leaves(graded_figures(gold, score, Resampling(300, 5)))
    assert blocks.keys() == whole.keys()
    for path, expected in whole.items():
        found = blocks[path]
        if isinstance(expected, float) and math.isnan(expected):
            assert isinstance(found, float) and math.isnan(found), path
        elif isinstance(expected, float):
            assert found == pytest.approx(expected, rel=TOLERANCE, abs=TOLERANCE), path
        else:
            assert found == expected, path
    assert whole[".auc.low"] < whole[".auc.estimate"] < whole[".auc.high"]  # type: ignore[operator]


def test_a_run_with_one_class_has_no_ranking_figures() -> None:
    f = graded_figures(np.zeros(5), np.linspace(0, 1, 5), Resampling(20, 0))
    assert math.isnan(f.auc.estimate) and math.isnan(f.average_precision.estimate)
    assert math.isnan(f.target_recall.threshold)
    assert f.brier.estimate == pytest.approx(brier_score_loss(np.zeros(5), np.linspace(0, 1, 5)))


@pytest.mark.parametrize(
    ("gold", "score", "message"),
    [
        ([0, 1], [0.2, math.nan], "probability"),
        ([0, 1], [0.2, 1.5], "probability"),
        ([0, 2], [0.2, 0.5], "gold"),
        ([0, 1], [0.2], "one row per case"),
        ([], [], "no case"),
    ],
)
def test_bad_input_is_named(gold: list[float], score: list[float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        graded_figures(np.array(gold, float), np.array(score, float), Resampling(10, 0))


@pytest.mark.parametrize("epochs", [1, 3])
def test_few_score_levels_give_the_figures_of_the_gather_over_every_case(
    epochs: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(3)
    gold = (rng.random(500) < 0.4).astype(float)
    score = rng.integers(0, epochs + 1, 500) / epochs
    fast = graded_figures(gold, score, Resampling(200, 1))
    monkeypatch.setattr(figures, "_FEW_LEVELS", 0)
    assert graded_figures(gold, score, Resampling(200, 1)) == fast
