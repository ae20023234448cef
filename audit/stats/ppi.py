"""The prediction-powered mean (PPI++), computed as the method's authors' package computes it.

Prediction-powered inference (Angelopoulos, Bates, Fannjiang, Jordan and Zrnic, Science 2023)
estimates a mean from a few labelled items and a model's predictions on every item: the mean
of the predictions, corrected by the labelled items' mean error (the rectifier). PPI++
(Angelopoulos, Duchi and Zrnic, 2023, arXiv:2311.01453) scales the predictions by a power-
tuning factor lambda in [0, 1] chosen from the data to make the interval as narrow as it can
be: lambda = 1 is plain PPI, lambda = 0 the labels alone. The interval is valid whatever the
predictions' errors, asymptotically in the number of labels.

`ppi_mean` is the one-dimensional mean case of `ppi_py.ppi_mean_ci` and
`ppi_py.ppi_mean_pointestimate` (ppi-python 0.2.3) with `lam=None`, including their sample
weights, reproduced in numpy: `import ppi_py` loads numba, statsmodels and scikit-learn, about
twice the import time of these modules (docs/audit.md has the figures), and would make numba,
llvmlite and gdown dependencies of every install for one closed-form mean.
tests/audit/stats/test_ppi.py checks it against the package itself (a dev dependency) to 1e-9.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from farejudge.audit.stats.arrays import Floats, as_floats
from farejudge.audit.stats.intervals import z_quantile
from farejudge.core.intervals import Interval


@dataclass(frozen=True)
class PPIMean:
    """A prediction-powered mean with its interval (the normal interval estimate +/- z se)."""

    interval: Interval
    se: float
    """The estimate's standard error: the predictions' part and the rectifier's, in quadrature."""
    lam: float
    """The power-tuning factor used: tuned in [0, 1] unless given; 0 is the labels alone."""
    labels: int
    population: int
    """How many predictions the mean of the predictions is over."""

    @property
    def estimate(self) -> float:
        return self.interval.estimate

    @property
    def variance(self) -> float:
        return self.se * self.se


def _weights(weights: ArrayLike | None, count: int, name: str) -> Floats:
    """ppi-python's weights: ones, or the given ones scaled to sum to `count`."""
    if weights is None:
        return np.ones(count)
    found = as_floats(weights, name)
    if len(found) != count:
        raise ValueError(f"{name} has {len(found)} values for {count} items")
    if not np.all(np.isfinite(found)) or np.any(found <= 0):
        raise ValueError(f"{name} must be positive and finite")
    scaled: Floats = found / found.sum() * count
    return scaled


def ppi_mean(
    labels: ArrayLike,
    predictions: ArrayLike,
    predictions_all: ArrayLike,
    alpha: float = 0.05,
    weights: ArrayLike | None = None,
    weights_all: ArrayLike | None = None,
    lam: float | None = None,
) -> PPIMean:
    """The PPI++ mean of `labels`' quantity and its two-sided 1 - alpha interval.

    `labels` (n) are the labelled items' true values, `predictions` (n) the model's
    predictions on those items, `predictions_all` (N) its predictions on the items whose mean
    is wanted. `weights` and `weights_all` are ppi-python's `w` and `w_unlabeled`: each set is
    scaled to sum to its count, so only their ratios matter (inverse inclusion probabilities
    for a sample that is not uniform). `lam=None` tunes lambda from the data as ppi-python
    does (clipped to [0, 1]); a float fixes it.

    Where ppi-python divides by zero, this gives the answer its formula tends to: predictions
    that are all equal carry no information, so the tuned lambda is 0 (the labels alone).
    Needs at least 2 labels (the rectifier's variance) and one prediction; every value finite.
    """
    y = as_floats(labels, "labels")
    yhat = as_floats(predictions, "predictions")
    yhat_all = as_floats(predictions_all, "predictions_all")
    n, big_n = len(y), len(yhat_all)
    if len(yhat) != n:
        raise ValueError(f"{n} labels but {len(yhat)} predictions on the labelled items")
    if n < 2:
        raise ValueError(f"{n} labels: at least 2 are needed to estimate a variance")
    if big_n == 0:
        raise ValueError("no predictions to take the mean of")
    for name, values in (("labels", y), ("predictions", yhat), ("predictions_all", yhat_all)):
        if not np.all(np.isfinite(values)):
            raise ValueError(f"{name} has a value that is not finite (NaN or infinite)")
    z = z_quantile(alpha)
    w = _weights(weights, n, "weights")
    w_all = _weights(weights_all, big_n, "weights_all")
    if lam is None:
        lam = _tuned_lambda(y, yhat, yhat_all, w, w_all)
    elif not 0 <= lam <= 1:
        raise ValueError(f"lam must lie in [0, 1], not {lam}")
    imputed = w_all * (lam * yhat_all)
    rectifier = w * (y - lam * yhat)
    estimate = float(imputed.mean() + rectifier.mean())
    se = math.sqrt(float(imputed.std()) ** 2 / big_n + float(rectifier.std()) ** 2 / n)
    return PPIMean(
        interval=Interval(estimate, estimate - z * se, estimate + z * se),
        se=se,
        lam=lam,
        labels=n,
        population=big_n,
    )


def _tuned_lambda(y: Floats, yhat: Floats, yhat_all: Floats, w: Floats, w_all: Floats) -> float:
    """ppi-python's `_calc_lam_glm` for the mean (identity Hessian, clipped to [0, 1]): the
    rectifier's covariance with the predictions over their variance, both centred at the
    lambda = 1 estimate and weighted as ppi-python weights them."""
    n, big_n = len(y), len(yhat_all)
    centre = (w_all * yhat_all).mean() + (w * (y - yhat)).mean()
    grads = w * (y - centre)
    grads_hat = w * (yhat - centre)
    grads_hat_all = w_all * (yhat_all - centre)
    covariance = 2 * float(np.mean((grads - grads.mean()) * (grads_hat - grads_hat.mean())))
    variance = float(np.var(np.concatenate([grads_hat, grads_hat_all]), ddof=1))
    if variance == 0:
        return 0.0
    return float(np.clip(covariance / (2 * (1 + n / big_n) * variance), 0.0, 1.0))
