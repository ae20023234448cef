"""Simulated audit periods with known truth: answers, a judge's predictions, labelled samples.

Each period is a population of answers, each ungrounded with the given rate; the judge sees
each answer and predicts, by its own figures, and may fail. The truth of a period is its own
share of ungrounded answers (what the team reports), not the rate it was drawn with.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]

RATE = 0.2
ANSWERS = 20_000
LABELS = 200


@dataclass(frozen=True)
class SimulatedJudge:
    name: str
    sensitivity: float
    """P(flag | ungrounded) for a verdict judge."""
    specificity: float
    """P(pass | grounded) for a verdict judge."""
    kind: str = "verdict"
    """"verdict" (0/1), "graded" (a P(ungrounded) that separates the classes), "noise" (a
    P(ungrounded) uniform on [0, 1] whatever the answer)."""
    fails_ungrounded: float = 0.0
    """Chance of a judge failure (NaN) on an ungrounded answer."""
    fails_grounded: float = 0.0

    def predict(self, rng: np.random.Generator, truth: Bools) -> Floats:
        n = len(truth)
        if self.kind == "noise":
            found = rng.random(n)
        elif self.kind == "graded":
            # A logistic score, 1.5 either side of 0 with unit noise.
            found = 1 / (1 + np.exp(-(np.where(truth, 1.5, -1.5) + rng.standard_normal(n))))
        else:
            chance = np.where(truth, self.sensitivity, 1 - self.specificity)
            found = (rng.random(n) < chance).astype(np.float64)
        failing = np.where(truth, self.fails_ungrounded, self.fails_grounded)
        return np.where(rng.random(n) < failing, np.nan, found)


BIASED = SimulatedJudge("biased (0.95/0.70)", 0.95, 0.70)
GOOD = SimulatedJudge("good (0.95/0.95)", 0.95, 0.95)
# About 2 disagreements in 200 labels: the normal interval alone reads the rectifier's spread
# too small here (audit/estimate.py, FEW_DISAGREEMENTS).
EXCELLENT = SimulatedJudge("excellent (0.99/0.99)", 0.99, 0.99)
NOISE = SimulatedJudge("noise", 0.0, 0.0, kind="noise")
# 10 % failures overall at a rate of 0.2, twice as frequent on ungrounded answers: failures
# that say something about the answer, which the failure rule must survive.
FAILING = SimulatedJudge(
    "biased, fails on 10 %", 0.95, 0.70, fails_ungrounded=0.1 / 0.6, fails_grounded=0.05 / 0.6
)
GRADED = SimulatedJudge("graded P(ungrounded)", 0.0, 0.0, kind="graded")


@dataclass(frozen=True)
class Period:
    truth: Bools
    """Each answer's truth: ungrounded or not."""
    predictions: Floats

    @property
    def rate(self) -> float:
        return float(self.truth.mean())


def simulate_period(
    rng: np.random.Generator, judge: SimulatedJudge, answers: int = ANSWERS, rate: float = RATE
) -> Period:
    truth = rng.random(answers) < rate
    return Period(truth=truth, predictions=judge.predict(rng, truth))


def uniform_positions(rng: np.random.Generator, answers: int, labels: int) -> NDArray[np.int64]:
    """A uniform sample of positions without replacement (numpy's, for speed: the audit's own
    draw is tested for uniformity in tests/audit/stats/test_design.py)."""
    found: NDArray[np.int64] = rng.choice(answers, labels, replace=False)
    return found
