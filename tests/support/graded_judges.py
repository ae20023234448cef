"""Scripted graded judges whose calibration is known exactly, for the escalation's simulations.

A judge's confidence on a case is drawn uniformly from one of its slices (chosen by the slice's
weight), and its verdict is right with a probability that is linear in that confidence across
the slice. So its error rate among the answers at or above any threshold, in the population the
gold cases are drawn from, is a closed form (`risk`): the figure the guarantee is about,
computed exactly instead of estimated on a finite test split.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Slice:
    """A share of the cases on which the judge's confidence is uniform on [low, high] and its
    verdict is right with probability right_low at confidence low, rising linearly to
    right_high at confidence high."""

    weight: float
    low: float
    high: float
    right_low: float
    right_high: float

    def wrong_rate(self, confidence: Floats) -> Floats:
        slope = (self.right_high - self.right_low) / (self.high - self.low)
        found: Floats = 1 - (self.right_low + slope * (confidence - self.low))
        return found

    def decided(self, threshold: float) -> float:
        """The slice's share of cases with confidence at or above the threshold."""
        start = min(max(threshold, self.low), self.high)
        return self.weight * (self.high - start) / (self.high - self.low)

    def wrong(self, threshold: float) -> float:
        """The slice's share of cases decided at the threshold and wrong: the integral of the
        linear error rate over the part of the slice at or above it."""
        start = min(max(threshold, self.low), self.high)
        mean_wrong = float(self.wrong_rate(np.array([(start + self.high) / 2]))[0])
        return self.decided(threshold) * mean_wrong


@dataclass(frozen=True)
class GradedJudge:
    name: str
    slices: tuple[Slice, ...]
    failure: float = 0.0
    """The chance of a judge failure on a case: no verdict, no confidence."""

    def draw(self, gold: Floats, rng: np.random.Generator) -> tuple[Floats, Floats]:
        """Verdicts and confidences on cases with these gold labels."""
        weights = np.array([s.weight for s in self.slices])
        chosen = rng.choice(len(self.slices), size=len(gold), p=weights / weights.sum())
        confidence = np.empty(len(gold))
        wrong = np.empty(len(gold))
        for index, piece in enumerate(self.slices):
            here = chosen == index
            confidence[here] = rng.uniform(piece.low, piece.high, here.sum())
            wrong[here] = piece.wrong_rate(confidence[here])
        flipped = rng.random(len(gold)) < wrong
        verdict = np.where(flipped, 1 - gold, gold)
        failed = rng.random(len(gold)) < self.failure
        verdict[failed] = np.nan
        confidence[failed] = np.nan
        return verdict, confidence

    def decided(self, threshold: float | None) -> float:
        """The population's share decided alone at the threshold (failures never are)."""
        if threshold is None:
            return 0.0
        return (1 - self.failure) * sum(piece.decided(threshold) for piece in self.slices)

    def wrong(self, threshold: float | None) -> float:
        """The population's share decided alone at the threshold and wrong."""
        if threshold is None:
            return 0.0
        return (1 - self.failure) * sum(piece.wrong(threshold) for piece in self.slices)

    def risk(self, threshold: float) -> float:
        """The error rate on what the judge decides alone at the threshold, in the population."""
        return self.wrong(threshold) / self.decided(threshold)


CALIBRATED = GradedJudge(
    "well calibrated", (Slice(0.6, 0.9, 1.0, 0.9, 1.0), Slice(0.4, 0.5, 0.9, 0.5, 0.9))
)
"""Right as often as it says, P(right | confidence c) = c, and sure of most answers: 90 to 100 %
sure of six in ten."""

OVERCONFIDENT = GradedJudge(
    "over-confident", (Slice(0.6, 0.9, 1.0, 0.85, 1.0), Slice(0.4, 0.5, 0.9, 0.25, 0.85))
)
"""The same confidences, but wrong one and a half times as often as it says:
P(wrong | c) = 1.5 (1 - c)."""

CONFIDENTLY_WRONG = GradedJudge(
    "confidently wrong on a slice",
    (
        Slice(0.54, 0.9, 1.0, 0.9, 1.0),
        Slice(0.36, 0.5, 0.9, 0.5, 0.9),
        Slice(0.1, 0.85, 0.95, 0.4, 0.4),
    ),
)
"""Well calibrated (as `CALIBRATED`) on nine cases in ten; on the tenth, a kind of case it
misreads, it is 85 to 95 % sure and right only 40 % of the time."""


def floor_judge(signal: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """144 cases, 63 grounded (the shipped gold set's counts), and a judge like the embedded
    floor: it says grounded on all but 4 cases (2 of them rightly ungrounded), 63 of 144 right
    (0.44). Its confidence (max(p, 1 - p) of a low P(ungrounded)) is high everywhere. Without
    a signal it is unrelated to being right. With a little signal, the 30 verdicts it is
    surest of (0.99) are grounded cases but for 2 errors, and the rest are spread below 0.95."""
    rng = np.random.default_rng(144)
    gold = np.array([0.0] * 63 + [1.0] * 81)
    verdict = np.zeros(144)
    verdict[[0, 1, 63, 64]] = 1  # two wrongly ungrounded, two rightly
    if signal:
        surest = [*range(2, 30), 65, 66]  # 28 right (grounded), 2 wrong (ungrounded)
        confidence = rng.uniform(0.6, 0.95, 144)
        confidence[surest] = 0.99
    else:
        confidence = rng.uniform(0.85, 0.99, 144)
    return verdict, confidence, gold
