"""Agreement statistics on a 2x2 table, "ungrounded" as the positive class.

Counts are floats so that a case judged over several epochs can contribute the share
of epochs on each side. An undefined ratio (nothing in its denominator) is NaN, never 0.
"""

from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

Share = TypeVar("Share", float, NDArray[np.float64])


def cells(answered: Share, gold: Share, judged: Share) -> tuple[Share, Share, Share, Share]:
    """What one case-epoch (or an array of them) adds to (tp, fn, fp, tn).

    1 is "ungrounded" for `gold` and `judged`; `answered` is 0 for a judge failure, which
    then adds to no cell. Shares between 0 and 1 are allowed: a case over epochs.
    """
    return (
        answered * gold * judged,
        answered * gold * (1 - judged),
        answered * (1 - gold) * judged,
        answered * (1 - gold) * (1 - judged),
    )


def ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("nan")


@dataclass(frozen=True)
class Confusion:
    tp: float = 0.0
    """gold ungrounded, judge ungrounded"""
    fn: float = 0.0
    """gold ungrounded, judge grounded"""
    fp: float = 0.0
    """gold grounded, judge ungrounded"""
    tn: float = 0.0
    """gold grounded, judge grounded"""

    @property
    def n(self) -> float:
        return self.tp + self.fn + self.fp + self.tn

    @property
    def accuracy(self) -> float:
        return ratio(self.tp + self.tn, self.n)

    @property
    def precision(self) -> float:
        return ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float:
        return ratio(self.tp, self.tp + self.fn)

    @property
    def specificity(self) -> float:
        return ratio(self.tn, self.tn + self.fp)

    @property
    def balanced_accuracy(self) -> float:
        return (self.recall + self.specificity) / 2

    @property
    def f1(self) -> float:
        return ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn)

    @property
    def kappa(self) -> float:
        """Cohen's kappa between gold and judge."""
        n = self.n
        if n == 0:
            return float("nan")
        observed = (self.tp + self.tn) / n
        gold_pos, judge_pos = (self.tp + self.fn) / n, (self.tp + self.fp) / n
        expected = gold_pos * judge_pos + (1 - gold_pos) * (1 - judge_pos)
        if expected == 1:
            # Both raters put every case in one class: agreement beyond chance is undefined.
            return float("nan")
        return (observed - expected) / (1 - expected)


def overlap_f1(overlap: float, predicted: float, gold: float) -> float:
    """F1 of a prediction against gold from their sizes and overlap (characters of spans, say).

    The overlap is the true positives, the rest of each side its false positives and false
    negatives: the harmonic mean of overlap / predicted and overlap / gold.
    """
    return Confusion(tp=overlap, fp=predicted - overlap, fn=gold - overlap).f1
