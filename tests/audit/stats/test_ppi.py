"""The prediction-powered mean against the method's authors' package, ppi-python, and its edges."""

import math

import numpy as np
import ppi_py
import pytest
from numpy.typing import NDArray

from farejudge.audit.stats.ppi import ppi_mean

Floats = NDArray[np.float64]


def _data(seed: int, graded: bool) -> tuple[Floats, Floats, Floats]:
    """A fixed data set: 150 labels, 3,000 predictions, a judge correlated with the truth."""
    rng = np.random.default_rng(seed)
    truth = rng.random(3_150) < 0.25
    if graded:
        predictions = 1 / (
            1 + np.exp(-(np.where(truth, 1.0, -1.0) + 1.5 * rng.standard_normal(3_150)))
        )
    else:
        predictions = np.where(truth, rng.random(3_150) < 0.8, rng.random(3_150) < 0.3).astype(
            float
        )
    return truth[:150].astype(float), predictions[:150], predictions[150:]


CASES = {
    "verdicts": dict(graded=False, weighted=False, weighted_all=False, alpha=0.05),
    "graded": dict(graded=True, weighted=False, weighted_all=False, alpha=0.05),
    "verdicts, alpha 0.1": dict(graded=False, weighted=False, weighted_all=False, alpha=0.1),
    "weighted labels": dict(graded=True, weighted=True, weighted_all=False, alpha=0.05),
    "weighted both": dict(graded=False, weighted=True, weighted_all=True, alpha=0.05),
}


@pytest.mark.parametrize("case", CASES)
def test_equals_ppi_python_with_tuned_lambda(case: str) -> None:
    options = CASES[case]
    y, yhat, yhat_all = _data(7, bool(options["graded"]))
    rng = np.random.default_rng(11)
    w = rng.uniform(0.5, 4.0, len(y)) if options["weighted"] else None
    w_all = rng.uniform(0.5, 2.0, len(yhat_all)) if options["weighted_all"] else None
    alpha = float(options["alpha"])
    ours = ppi_mean(y, yhat, yhat_all, alpha=alpha, weights=w, weights_all=w_all)
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_all, alpha=alpha, w=w, w_unlabeled=w_all)
    point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_all, w=w, w_unlabeled=w_all)
    print(
        f"\n{case}: lambda {ours.lam:.4f}, estimate {ours.estimate:.6f} "
        f"[{ours.interval.low:.6f}, {ours.interval.high:.6f}]"
    )
    # The tuned lambda lies inside (0, 1): the tuning itself is compared, not a clipped end.
    assert 0 < ours.lam < 1
    assert ours.estimate == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
    assert ours.interval.low == pytest.approx(float(np.ravel(low)[0]), abs=1e-9)
    assert ours.interval.high == pytest.approx(float(np.ravel(high)[0]), abs=1e-9)


@pytest.mark.parametrize("lam", [0.0, 0.4, 1.0])
def test_equals_ppi_python_with_a_fixed_lambda(lam: float) -> None:
    y, yhat, yhat_all = _data(3, graded=True)
    ours = ppi_mean(y, yhat, yhat_all, lam=lam)
    low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_all, alpha=0.05, lam=lam)
    assert (ours.interval.low, ours.interval.high) == pytest.approx(
        (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
    )


def test_constant_predictions_give_the_labels_alone() -> None:
    # ppi-python divides 0 by 0 here; the answer its formula tends to is lambda = 0.
    y, _, _ = _data(5, graded=False)
    ours = ppi_mean(y, np.ones(len(y)), np.ones(1_000))
    low, high = ppi_py.ppi_mean_ci(y, np.ones(len(y)), np.ones(1_000), alpha=0.05, lam=0)
    assert ours.lam == 0
    assert ours.estimate == pytest.approx(y.mean(), abs=1e-12)
    assert (ours.interval.low, ours.interval.high) == pytest.approx(
        (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
    )


def test_a_judge_that_predicts_the_labels_narrows_the_interval() -> None:
    y, _, _ = _data(5, graded=False)
    found = ppi_mean(y, y, np.concatenate([y, y]))
    # Near 1 / (1 + n / N) = 2/3: the labelled items' share keeps lambda below 1.
    assert 0.6 < found.lam < 0.7
    classical = ppi_mean(y, y, np.concatenate([y, y]), lam=0.0)
    assert found.se < classical.se


@pytest.mark.parametrize(
    ("labels", "predictions", "predictions_all", "options", "message"),
    [
        ([1.0], [1.0], [0.5, 0.5], {}, "at least 2"),
        ([], [], [0.5], {}, "at least 2"),
        ([1.0, 0.0], [1.0], [0.5], {}, "2 labels but 1 predictions"),
        ([1.0, 0.0], [1.0, 0.0], [], {}, "no predictions"),
        ([1.0, math.nan], [1.0, 0.0], [0.5], {}, "labels has a value that is not finite"),
        ([1.0, 0.0], [1.0, 0.0], [math.nan], {}, "predictions_all has a value"),
        ([1.0, 0.0], [1.0, 0.0], [0.5], {"alpha": 1.0}, "alpha must lie"),
        ([1.0, 0.0], [1.0, 0.0], [0.5], {"weights": [1.0, 0.0]}, "weights must be positive"),
        ([1.0, 0.0], [1.0, 0.0], [0.5], {"weights": [1.0]}, "weights has 1 values for 2"),
        ([1.0, 0.0], [1.0, 0.0], [0.5], {"lam": 1.5}, "lam must lie in"),
        ([[1.0, 0.0]], [1.0, 0.0], [0.5], {}, "one-dimensional"),
    ],
)
def test_bad_input_is_named(
    labels: list[float],
    predictions: list[float],
    predictions_all: list[float],
    options: dict[str, object],
    message: str,
) -> None:
    with pytest.raises(ValueError, match=message):
        ppi_mean(labels, predictions, predictions_all, **options)  # type: ignore[arg-type]
