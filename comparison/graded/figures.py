"""One run's graded figures against gold: ranking, calibration, budgets, the target cut-off.

"Positive" is gold ungrounded throughout. Every figure is computed by one code path from
case weights: the estimate is the all-ones weighting, a bootstrap resample is the weighting
that counts how often each case was drawn. Resamples go through in blocks, so memory stays
at a block of weights whatever the number of resamples.

Ties: ROC-AUC counts a tied positive-negative pair as one half (the Mann-Whitney statistic,
which is also the trapezoid under the ROC curve); average precision takes one threshold per
distinct score, as scikit-learn does. A review budget cuts through a group of tied scores at
random: the reviewed counts are their expected value under that draw (the tied group's
positives counted pro rata).
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from farejudge.comparison.stats.bootstrap import Resampling, weight_blocks
from farejudge.comparison.stats.intervals import Interval, percentile_interval, wilson

Floats = NDArray[np.float64]

BUDGETS = (0.1, 0.2, 0.3)
"""Review budgets: shares of answers reviewed, highest P(ungrounded) first."""
BINS = 10
"""Equal-width bins of the calibration table."""


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    count: int
    mean_predicted: float
    """NaN in an empty bin."""
    observed: Interval
    """Share of gold ungrounded cases in the bin (Wilson interval)."""


@dataclass(frozen=True)
class Budget:
    share: float
    """Share of answers reviewed."""
    reviewed: int
    """Answers reviewed: the share of the cases, rounded up."""
    recall: Interval
    """Share of the ungrounded answers that the review catches."""
    precision: Interval
    """Share of the reviewed answers that are ungrounded."""


@dataclass(frozen=True)
class TargetRecall:
    target: float
    threshold: float
    """The highest P(ungrounded) cut-off whose flagged cases (P >= it, ties all flagged)
    reach the target recall; NaN with no ungrounded case."""
    review_share: Interval
    """Share of all answers flagged at that cut-off (each resample at its own cut-off)."""


@dataclass(frozen=True)
class Curves:
    """The ROC and precision-recall curves, one point per distinct score, highest first."""

    false_positive_rate: list[float]
    true_positive_rate: list[float]
    recall: list[float]
    precision: list[float]


@dataclass(frozen=True)
class GradedFigures:
    cases: int
    ungrounded: int
    auc: Interval
    average_precision: Interval
    brier: Interval
    ece: Interval
    """Expected calibration error over the equal-width bins: sum of |predicted - observed|
    weighted by the bin's share of cases."""
    calibration: list[CalibrationBin]
    budgets: list[Budget]
    target_recall: TargetRecall
    curves: Curves


# Up to this many score levels (a verdict graded over a few epochs has epochs + 1), a
# weighting's per-level sums are one matrix product with the cases' levels, not a gather of
# every case weight into score order: a pass over the weights instead of three.
_FEW_LEVELS = 32


class _Levels:
    """The cases sorted by score, highest first, with the start of each group of tied scores."""

    def __init__(self, gold: Floats, score: Floats) -> None:
        self.order = np.argsort(-score, kind="stable")
        ranked = score[self.order]
        self.starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
        self.scores = ranked[self.starts]
        self.gold = gold[self.order]
        self.by_case: Floats | None = None
        if len(self.starts) <= _FEW_LEVELS:
            level = np.empty(len(score), dtype=np.int64)
            level[self.order] = np.cumsum(np.r_[True, ranked[1:] != ranked[:-1]]) - 1
            # Per case: its level's column for its positive weight, then for its weight.
            onehot = np.zeros((len(score), len(self.starts)))
            onehot[np.arange(len(score)), level] = 1.0
            self.by_case = np.hstack([onehot * gold[:, None], onehot])


def _per_level(weights: Floats, levels: _Levels) -> tuple[Floats, Floats]:
    """Weight of positives and of all cases at each score level, per weighting (rows).

    Case weights are whole counts, so either way the sums are exact and the same."""
    if levels.by_case is not None:
        sums = weights @ levels.by_case
        count = len(levels.starts)
        return sums[:, :count], sums[:, count:]
    ranked = weights[:, levels.order]
    positives = np.add.reduceat(ranked * levels.gold, levels.starts, axis=1)
    return positives, np.add.reduceat(ranked, levels.starts, axis=1)


def _reviewed(share: float, cases: int) -> int:
    # The share of the cases rounded up; the slack keeps 0.1 * 30 at 3, not 4.
    return math.ceil(share * cases - 1e-9)


def _divide(num: Floats, den: Floats) -> Floats:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _ranking(
    weights: Floats, levels: _Levels, budgets: Sequence[float], target: float
) -> dict[str, Floats]:
    pos, total = _per_level(weights, levels)
    neg = total - pos
    n_pos, n_neg, n = pos.sum(axis=1), neg.sum(axis=1), total.sum(axis=1)
    cum_pos, cum_neg, cum_total = (np.cumsum(a, axis=1) for a in (pos, neg, total))
    # A positive at a level outranks the negatives below it and ties with those at it.
    above = (pos * (n_neg[:, None] - cum_neg + 0.5 * neg)).sum(axis=1)
    figures = {
        "auc": _divide(above, n_pos * n_neg),
        "average_precision": _divide(
            (pos * np.nan_to_num(_divide(cum_pos, cum_total))).sum(axis=1), n_pos
        ),
    }
    rows = np.arange(len(weights))
    for share in budgets:
        k = _reviewed(share, len(levels.order))
        # The level the cut falls in, and the part of it the review takes.
        at = (cum_total < k).sum(axis=1)
        before_total = np.where(at > 0, cum_total[rows, at - 1], 0.0)
        before_pos = np.where(at > 0, cum_pos[rows, at - 1], 0.0)
        caught = before_pos + pos[rows, at] * (k - before_total) / total[rows, at]
        figures[f"recall@{share}"] = _divide(caught, n_pos)
        figures[f"precision@{share}"] = caught / k
    # Float sums of whole counts: a hair of slack so that reaching the target counts.
    reached = cum_pos >= target * n_pos[:, None] - 1e-9
    first = np.argmax(reached, axis=1)
    figures["review_share"] = np.where(n_pos > 0, cum_total[rows, first] / n, np.nan)
    figures["threshold_level"] = np.where(n_pos > 0, first, -1).astype(float)
    return figures


def _calibration_columns(gold: Floats, score: Floats) -> Floats:
    """Per case: its score and its gold in its calibration bin's column, its squared error,
    and 1: a weighting's calibration figures are then one matrix product away."""
    bins = np.minimum((score * BINS).astype(int), BINS - 1)
    onehot = np.zeros((len(score), BINS))
    onehot[np.arange(len(score)), bins] = 1.0
    return np.hstack(
        [
            onehot * score[:, None],
            onehot * gold[:, None],
            np.c_[(score - gold) ** 2, np.ones_like(score)],
        ]
    )


def _calibration(weights: Floats, columns: Floats) -> dict[str, Floats]:
    sums = weights @ columns
    predicted, observed = sums[:, :BINS], sums[:, BINS : 2 * BINS]
    squared, n = sums[:, 2 * BINS], sums[:, 2 * BINS + 1]
    return {
        "brier": squared / n,
        # A bin's share of cases times |mean predicted - observed| is |sum - sum| / n.
        "ece": np.abs(predicted - observed).sum(axis=1) / n,
    }


def _resampled(
    figures: Callable[[Floats], dict[str, Floats]], n: int, resampling: Resampling
) -> dict[str, Floats]:
    parts = [figures(weights) for weights in weight_blocks(n, resampling)]
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def _check(gold: Floats, score: Floats) -> None:
    if gold.shape != score.shape or gold.ndim != 1:
        raise ValueError(f"gold {gold.shape} and scores {score.shape} must be one row per case")
    if not np.isin(gold, (0.0, 1.0)).all():
        raise ValueError("gold must be 0 (grounded) or 1 (ungrounded) for every case")
    if not ((score >= 0) & (score <= 1)).all():
        raise ValueError("every graded score must be a probability in [0, 1] (no NaN)")


def _calibration_table(gold: Floats, score: Floats) -> list[CalibrationBin]:
    bins = np.minimum((score * BINS).astype(int), BINS - 1)
    table = []
    for b in range(BINS):
        inside = bins == b
        count = int(inside.sum())
        table.append(
            CalibrationBin(
                low=b / BINS,
                high=(b + 1) / BINS,
                count=count,
                mean_predicted=float(score[inside].mean()) if count else math.nan,
                observed=wilson(float(gold[inside].sum()), count),
            )
        )
    return table


def _curves(levels: _Levels) -> Curves:
    pos, total = (a[0] for a in _per_level(np.ones((1, len(levels.order))), levels))
    tp, flagged = np.cumsum(pos), np.cumsum(total)
    fp = flagged - tp
    n_pos, n_neg = tp[-1], fp[-1]
    if n_pos == 0 or n_neg == 0:
        # One class only: neither curve is defined.
        return Curves([], [], [], [])
    return Curves(
        false_positive_rate=[0.0, *(fp / n_neg).tolist()],
        true_positive_rate=[0.0, *(tp / n_pos).tolist()],
        recall=(tp / n_pos).tolist(),
        precision=(tp / flagged).tolist(),
    )


def graded_figures(
    gold: Floats,
    score: Floats,
    resampling: Resampling,
    target_recall: float = 0.9,
    budgets: Sequence[float] = BUDGETS,
) -> GradedFigures:
    """Every per-run figure of one graded score: one row per case, gold 1 for ungrounded."""
    gold, score = np.asarray(gold, dtype=float), np.asarray(score, dtype=float)
    _check(gold, score)
    if len(gold) == 0:
        raise ValueError("no case with a graded score: there is nothing to compute")
    levels = _Levels(gold, score)
    calibration = _calibration_columns(gold, score)

    def figures(weights: Floats) -> dict[str, Floats]:
        return {
            **_ranking(weights, levels, budgets, target_recall),
            **_calibration(weights, calibration),
        }

    n = len(gold)
    point = {key: float(v[0]) for key, v in figures(np.ones((1, n))).items()}
    spread = _resampled(figures, n, resampling)

    def boot(key: str) -> Interval:
        return percentile_interval(point[key], spread[key])

    level = int(point["threshold_level"])
    return GradedFigures(
        cases=n,
        ungrounded=int(gold.sum()),
        auc=boot("auc"),
        average_precision=boot("average_precision"),
        brier=boot("brier"),
        ece=boot("ece"),
        calibration=_calibration_table(gold, score),
        budgets=[
            Budget(
                share=share,
                reviewed=_reviewed(share, n),
                recall=boot(f"recall@{share}"),
                precision=boot(f"precision@{share}"),
            )
            for share in budgets
        ],
        target_recall=TargetRecall(
            target=target_recall,
            threshold=float(levels.scores[level]) if level >= 0 else math.nan,
            review_share=boot("review_share"),
        ),
        curves=_curves(levels),
    )
