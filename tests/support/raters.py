"""Annotators and judges of known quality, simulated, and the reference fixtures read back."""

import itertools
import json
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from tests.support.paths import FIXTURES

Floats = NDArray[np.float64]
RATERS_FIXTURES = FIXTURES / "raters"


def reference_cases(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A reference fixture's provenance and its cases (tests/fixtures/raters/<name>)."""
    doc = json.loads((RATERS_FIXTURES / name).read_text(encoding="utf-8"))
    return doc["provenance"], doc["cases"]


def as_floats(values: list[Any]) -> Floats:
    """A fixture's list (or list of rows) with null as NaN."""
    return np.array(values, dtype=float)


def missing_at_random(
    labels: Floats, share: float, rng: np.random.Generator, keep: int = 1
) -> Floats:
    """`labels` with each entry dropped (NaN) with probability `share`, each item keeping at
    least `keep` of its labels."""
    dropped = rng.random(labels.shape) < share
    for row in dropped:
        kept = rng.choice(len(row), size=keep, replace=False)
        row[kept] = False
    found = labels.astype(float)
    found[dropped] = np.nan
    return found


@dataclass(frozen=True)
class Annotators:
    """Binary labels from annotators of known sensitivity and specificity."""

    truth: NDArray[np.bool_]
    sensitivity: Floats
    specificity: Floats
    labels: Floats


def annotators(
    rng: np.random.Generator,
    items: int,
    sensitivity: Floats,
    specificity: Floats,
    prevalence: float,
) -> Annotators:
    """Each annotator labels every item: ungrounded (1) with its sensitivity where the item is
    ungrounded, grounded (0) with its specificity where it is grounded."""
    truth = rng.random(items) < prevalence
    says_ungrounded = np.where(truth[:, None], sensitivity, 1 - specificity)
    labels = (rng.random((items, len(sensitivity))) < says_ungrounded).astype(float)
    return Annotators(truth, sensitivity, specificity, labels)


def symmetric_labels(
    rng: np.random.Generator, truth: NDArray[np.int64], accuracy: float, shape: tuple[int, ...]
) -> Floats:
    """Binary labels of `truth` (broadcast to `shape`), each right with `accuracy`."""
    right = rng.random(shape) < accuracy
    labels: Floats = np.where(right, truth, 1 - truth).astype(float)
    return labels


def advantage_gap(annotator_accuracy: float, judge_accuracy: float, others: int = 2) -> float:
    """The expected advantage of a left-out annotator over the judge that the alternative
    annotator test measures: P(it aligns better with the others) − P(the judge does), with
    binary labels each right independently with the accuracy given, by enumerating every
    pattern of right and wrong."""
    gap = 0.0
    for own, judged, *rest in itertools.product((0, 1), repeat=2 + others):
        chance = (annotator_accuracy if own else 1 - annotator_accuracy) * (
            judge_accuracy if judged else 1 - judge_accuracy
        )
        for r in rest:
            chance *= annotator_accuracy if r else 1 - annotator_accuracy
        # Two labels agree where both are right or both wrong.
        own_score = sum(own == r for r in rest)
        judge_score = sum(judged == r for r in rest)
        gap += chance * ((own_score > judge_score) - (judge_score > own_score))
    return gap
