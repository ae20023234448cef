"""One period's estimate of the ungrounded rate: PPI++ beside the labels alone and the judge alone.

Inputs are arrays over the period's answers (the population, N) and its labelled sample (n):
`predictions[i]` is the judge's P(ungrounded) for answer i, or its verdict as 0/1, or NaN where
the judge failed on it; `labelled` holds the labelled answers' positions in the population and
`labels` their human labels, 1 = ungrounded: with several annotators, the mean of an answer's
labels, a share in [0, 1] (PPI's mean estimate holds for any bounded label; its estimand is then
the share the average annotator would call ungrounded).

The failure rule. A judge failure predicts the judge's mean prediction over the period's
answered answers (its own rate among them). The rule reads predictions only, never a label,
so the filled-in predictions are a fixed function of the judge's output over the period; the
sample is drawn from the period independently of it, so the prediction-powered interval stays
valid, whether failures strike at random or mostly on ungrounded answers (tested at 10 %
failures, twice as frequent on ungrounded answers). Of all fixed values it is the one that adds
the least variance when failures strike at random: the failed answers' rectifier then has the
answered ones' mean. The judge's own rate is unchanged by it: it is the rate over answered ones.
"""

import math
from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from farejudge.audit.stats.arrays import Floats, as_floats
from farejudge.audit.stats.intervals import clopper_pearson, wilson, z_quantile
from farejudge.audit.stats.ppi import PPIMean, ppi_mean
from farejudge.core.intervals import Interval

Positions = NDArray[np.int64]

FEW_DISAGREEMENTS = 20
"""Below this many labelled disagreements, the rectifier's variance is read with half a
disagreement of each kind added (a missed ungrounded answer and a false flag), after Agresti and
Min's half count on each cell of a paired 2 x 2 table (Statistics in Medicine, 2005). The normal
interval of PPI rests on the rectifier's spread, and with a handful of disagreements that spread
is read too small: a judge of sensitivity and specificity 0.99 (about 2 disagreements in 200
labels) covered about 91 % at 95 %; with the half counts it covers above 97 %
(tests/audit/estimate/test_coverage.py). The point estimate is unchanged, and from this many
disagreements on the interval is ppi-python's, to the last bit."""


@dataclass(frozen=True)
class FilledPredictions:
    """Every answer's prediction with the judge failures filled in by the failure rule."""

    values: Floats
    failed: NDArray[np.bool_]
    fill: float
    """What a failure predicts: the mean prediction over answered answers (0 if none was)."""

    @property
    def failures(self) -> int:
        return int(self.failed.sum())


def fill_failures(predictions: ArrayLike) -> FilledPredictions:
    """The failure rule applied to the period's predictions (NaN = judge failure).

    Predictions must lie in [0, 1]. If the judge failed on every answer, failures predict 0:
    the predictions are then all equal, carry no information, and the estimate is the labels'
    alone whatever value they take.
    """
    values = as_floats(predictions, "predictions")
    failed = np.isnan(values)
    answered = values[~failed]
    if np.any((answered < 0) | (answered > 1)):
        raise ValueError("predictions must lie in [0, 1] (or be NaN for a judge failure)")
    fill = float(answered.mean()) if len(answered) else 0.0
    return FilledPredictions(values=np.where(failed, fill, values), failed=failed, fill=fill)


@dataclass(frozen=True)
class LabelsOnlyRate:
    """The rate from the labels alone, ignoring the judge."""

    classical: PPIMean
    """The labels' (weighted) mean with its normal interval: PPI with lambda = 0."""
    ungrounded: int
    labels: int
    alpha: float
    uniform: bool
    """Whether the sample is uniform (unweighted) and its labels 0 or 1 (no annotators
    differing on an answer): the binomial intervals on the count apply to it only."""

    def wilson(self) -> Interval | None:
        """Wilson's interval on the count; None for a weighted (stratified) sample or labels
        between 0 and 1."""
        return wilson(self.ungrounded, self.labels, self.alpha) if self.uniform else None

    def clopper_pearson(self) -> Interval | None:
        """Clopper-Pearson's exact interval on the count; None for a weighted sample or labels
        between 0 and 1."""
        return clopper_pearson(self.ungrounded, self.labels, self.alpha) if self.uniform else None


@dataclass(frozen=True)
class JudgeOwnRate:
    """The judge's own rate over the period's answered answers, with a naive normal interval.

    Biased by the judge's errors: a judge of sensitivity 0.95 and specificity 0.70 reports
    about 43 % where the truth is 20 %. The interval only says how precisely the judge's own
    rate is known, not where the true rate is; its coverage of the truth fails.
    """

    CAVEAT: ClassVar[str] = "biased by the judge's errors: not an interval for the true rate"

    interval: Interval
    answered: int
    failures: int


@dataclass(frozen=True)
class PeriodEstimate:
    """A period's ungrounded rate by PPI++, with the figures to read it against."""

    rate: PPIMean
    """The ungrounded rate by PPI++ (power-tuned) and its 1 - alpha interval."""
    labels_only: LabelsOnlyRate
    judge: JudgeOwnRate
    effective_labels: float
    """n x the labels-only variance / the PPI variance: how many labels alone would give the
    PPI interval's width (NaN where the PPI variance is 0)."""
    failure_fill: float
    """What each judge failure predicted (the failure rule)."""
    disagreements: int
    """Labelled answers whose verdict (prediction >= 0.5; failures excluded) is not the label;
    with labels between 0 and 1, the sum of |verdict - label| rounded down: the disagreements
    with the average annotator (the same count for labels of 0 and 1)."""
    widened: bool
    """Whether the rate's interval was widened for having fewer than `FEW_DISAGREEMENTS`
    disagreements: its variance then counts half a disagreement of each kind more."""


def check_labels(
    labels: ArrayLike, labelled: ArrayLike, population: int
) -> tuple[Floats, Positions]:
    """The labels as floats and their positions as integers, or a ValueError saying what is
    wrong: no labels, a label outside [0, 1], a position repeated or outside the period."""
    y = as_floats(labels, "labels")
    positions = np.asarray(labelled)
    if positions.ndim != 1 or len(positions) != len(y):
        raise ValueError(f"{len(y)} labels but positions of shape {positions.shape}")
    if len(y) == 0:
        raise ValueError("no labels: the period's estimate needs a labelled sample")
    if not np.all((y >= 0) & (y <= 1)):
        raise ValueError(
            "labels must lie in [0, 1]: 0 grounded, 1 ungrounded, between for annotators' mean"
        )
    if not np.issubdtype(positions.dtype, np.integer):
        raise ValueError("labelled positions must be integers")
    if np.any((positions < 0) | (positions >= population)):
        raise ValueError(f"a labelled position lies outside the period's {population} answers")
    if len(np.unique(positions)) != len(positions):
        raise ValueError("an answer is labelled twice")
    return y, positions.astype(np.int64)


def estimate_period(
    predictions: ArrayLike,
    labelled: ArrayLike,
    labels: ArrayLike,
    alpha: float = 0.05,
    weights: ArrayLike | None = None,
) -> PeriodEstimate:
    """The period's estimate from every answer's prediction and the labelled sample.

    `weights` are the labelled answers' inverse inclusion probabilities for a sample that is
    not uniform (`AuditSample.weights`); None for a uniform sample.
    """
    filled = fill_failures(predictions)
    y, positions = check_labels(labels, labelled, len(filled.values))
    return _estimate(filled, positions, y, alpha, weights)


def _estimate(
    filled: FilledPredictions,
    positions: Positions,
    y: Floats,
    alpha: float,
    weights: ArrayLike | None,
) -> PeriodEstimate:
    yhat = filled.values[positions]
    rate = ppi_mean(y, yhat, filled.values, alpha=alpha, weights=weights)
    classical = ppi_mean(y, yhat, filled.values, alpha=alpha, weights=weights, lam=0.0)
    # Rounded down: a whole count for labels of 0 and 1, as many as the average annotator's.
    ungrounded, n = math.floor(float(y.sum()) + 1e-9), len(y)
    answered = filled.values[~filled.failed]
    verdicts = (filled.values[positions] >= 0.5).astype(np.float64)
    differing = np.abs(verdicts - y)[~filled.failed[positions]]
    disagreements = math.floor(float(differing.sum()) + 1e-9)
    binary = bool(np.all((y == 0) | (y == 1)))
    widened = disagreements < FEW_DISAGREEMENTS
    if widened:
        rate = _with_half_counts(rate, y, yhat, weights, alpha)
    return PeriodEstimate(
        rate=rate,
        labels_only=LabelsOnlyRate(
            classical=classical,
            ungrounded=ungrounded,
            labels=n,
            alpha=alpha,
            uniform=weights is None and binary,
        ),
        judge=JudgeOwnRate(
            interval=_normal_mean(answered, alpha),
            answered=len(answered),
            failures=filled.failures,
        ),
        effective_labels=n * classical.variance / rate.variance if rate.variance > 0 else math.nan,
        failure_fill=filled.fill,
        disagreements=disagreements,
        widened=widened,
    )


def _with_half_counts(
    rate: PPIMean, y: Floats, yhat: Floats, weights: ArrayLike | None, alpha: float
) -> PPIMean:
    """`rate` with its rectifier's variance read with half a disagreement of each kind added
    (`FEW_DISAGREEMENTS`): a missed ungrounded answer (1 - 0) and a false flag (0 - lambda),
    each at the labels' mean weight, which ppi-python's scaling makes 1."""
    w = np.ones(len(y)) if weights is None else as_floats(weights, "weights")
    rectifier = w / w.mean() * (y - rate.lam * yhat)
    plain = float(rectifier.std()) ** 2
    values = np.concatenate([rectifier, [1.0, -rate.lam]])
    counts = np.concatenate([np.ones(len(y)), [0.5, 0.5]])
    mean = np.average(values, weights=counts)
    padded = float(np.average((values - mean) ** 2, weights=counts))
    # The predictions' part of the variance is kept as it was.
    se = math.sqrt(max(rate.se**2 - plain / len(y), 0.0) + padded / len(y))
    half = z_quantile(alpha) * se
    estimate = rate.estimate
    return replace(rate, interval=Interval(estimate, estimate - half, estimate + half), se=se)


def _normal_mean(values: Floats, alpha: float) -> Interval:
    """The mean with its naive normal interval; undefined for no values."""
    if len(values) == 0:
        return Interval.undefined()
    mean = float(values.mean())
    half = z_quantile(alpha) * float(values.std()) / math.sqrt(len(values))
    return Interval(mean, mean - half, mean + half)


@dataclass(frozen=True)
class CategoryEstimate:
    category: str
    population: int
    labels: int
    estimate: PeriodEstimate | None
    """None where the category has fewer than 2 labels: its rate cannot be estimated."""


def estimate_by_category(
    predictions: ArrayLike,
    labelled: ArrayLike,
    labels: ArrayLike,
    categories: ArrayLike,
    alpha: float = 0.05,
    weights: ArrayLike | None = None,
) -> list[CategoryEstimate]:
    """The period's estimate within each category of answers, by category name.

    `categories` names each answer's category (N strings). Failures predict the period's fill, as in
    the whole period's estimate. A uniform sample's labels within a category are a uniform
    sample of it; a weighted sample's weights are renormalised within the category.
    """
    filled = fill_failures(predictions)
    y, positions = check_labels(labels, labelled, len(filled.values))
    names = np.asarray(categories, dtype=object)
    if names.shape != filled.values.shape:
        raise ValueError(f"{len(names)} categories for {len(filled.values)} answers")
    w = None if weights is None else as_floats(weights, "weights")
    if w is not None and len(w) != len(y):
        raise ValueError(f"weights has {len(w)} values for {len(y)} labels")
    found = []
    for name in sorted(set(names.tolist())):
        members = names == name
        # Each member's position among the category's answers.
        renumbered = np.cumsum(members) - 1
        inside = members[positions]
        part = FilledPredictions(
            values=filled.values[members], failed=filled.failed[members], fill=filled.fill
        )
        count = int(inside.sum())
        found.append(
            CategoryEstimate(
                category=str(name),
                population=int(members.sum()),
                labels=count,
                estimate=None
                if count < 2
                else _estimate(
                    part,
                    renumbered[positions[inside]],
                    y[inside],
                    alpha,
                    None if w is None else w[inside],
                ),
            )
        )
    return found
