"""The judge's sensitivity and specificity on a period's labels, with Wilson intervals.

As in the comparison's figures, a judge failure counts in neither: sensitivity is the share of
the ungrounded labelled answers the judge answered that it flagged, specificity the share of
the grounded ones it passed. The labels must be a uniform sample: a stratified sample that
labels more of what the judge flags would overstate sensitivity and understate specificity.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from farejudge.audit.stats.arrays import as_floats
from farejudge.audit.stats.intervals import wilson
from farejudge.core.intervals import Interval


@dataclass(frozen=True)
class JudgeAgreement:
    """The judge against one period's labels."""

    sensitivity: Interval
    """Flagged share of the answered ungrounded labels; undefined with none."""
    specificity: Interval
    """Passed share of the answered grounded labels; undefined with none."""
    positives: int
    """Answered labelled answers labelled ungrounded."""
    misses: int
    """Of those, the ones the judge passed."""
    negatives: int
    """Answered labelled answers labelled grounded."""
    false_alarms: int
    """Of those, the ones the judge flagged."""
    failures: int
    """Labelled answers the judge failed on."""


def judge_agreement(
    labels: ArrayLike, predictions: ArrayLike, cut: float = 0.5, alpha: float = 0.05
) -> JudgeAgreement:
    """The judge's agreement with `labels` (1 = ungrounded) from its `predictions` on the same
    answers (P(ungrounded) or a 0/1 verdict; NaN = failure). A prediction at or above `cut`
    flags the answer: the judge's operating point (decision.json's threshold, or 0.5)."""
    y = as_floats(labels, "labels")
    yhat = as_floats(predictions, "predictions")
    if len(y) != len(yhat):
        raise ValueError(f"{len(y)} labels but {len(yhat)} predictions")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("labels must be 0 (grounded) or 1 (ungrounded)")
    answered = ~np.isnan(yhat)
    flagged = np.zeros(len(y), dtype=bool)
    flagged[answered] = yhat[answered] >= cut
    ungrounded = answered & (y == 1)
    grounded = answered & (y == 0)
    positives, negatives = int(ungrounded.sum()), int(grounded.sum())
    caught, passed = int((ungrounded & flagged).sum()), int((grounded & ~flagged).sum())
    return JudgeAgreement(
        sensitivity=wilson(caught, positives, alpha),
        specificity=wilson(passed, negatives, alpha),
        positives=positives,
        misses=positives - caught,
        negatives=negatives,
        false_alarms=negatives - passed,
        failures=int((~answered).sum()),
    )
