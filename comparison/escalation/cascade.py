"""A cascade of judges, cheapest first, then a person: each judge decides alone what it is sure
of and escalates the rest; its threshold is calibrated on the gold cases that reach it, so that
the guarantee holds for the cascade as a whole.

This is Trust or Escalate's Cascaded Selective Evaluation (Jung, Brahman and Choi, ICLR 2025,
arXiv:2407.18370): judge j's threshold is calibrated by fixed-sequence testing
(`threshold.calibrate`) on the calibration cases no earlier judge decided, as the authors'
`CascadedClassifier.calibrate` does, at level delta / k for a cascade of k judges. With
probability at least 1 - delta every judge's error rate on what it decides is then at most
alpha (a union bound over the k tests), so the error rate on everything the judges decide, a
mixture of theirs, is at most alpha too. The released code tests every judge at the full delta,
which the union bound turns into only 1 - k * delta for the whole; the split here is the
paper's Algorithm 2 as the re-implementation
github.com/ShardulJunagade/cascaded-selective-evaluation (open_cascade/cascade.py) describes it,
and the simulation in tests/comparison/escalation/test_guarantee.py checks it. What reaches no
judge goes to a person, whose label is gold's by definition.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from farejudge.comparison.escalation.binomial import Floats, Proportion, clopper_pearson
from farejudge.comparison.escalation.threshold import MIN_DECIDED, Calibration, calibrate
from farejudge.scorers.escalation import decides

PER_1K = 1000
"""Costs are per 1,000 answers, as the deploy decision's are."""


@dataclass(frozen=True)
class Judge:
    """A candidate judge on the gold cases: its verdicts, their confidence and its price."""

    name: str
    verdict: Floats
    """Per gold case: 1 ungrounded, 0 grounded, NaN for a judge failure."""
    confidence: Floats
    """Per gold case, in [0, 1] (`scorers.escalation.confidence_of`); NaN where there is none."""
    cost_per_answer: float
    """What judging one answer costs (all its epochs, or all a panel's members' calls), in the
    currency of the human cost per review."""


@dataclass(frozen=True)
class Stage:
    """One judge in a cascade: its calibration on the gold cases that reached it."""

    judge: str
    cost_per_answer: float
    calibration: Calibration
    """On the `reached` cases, at the cascade's delta shared among its judges."""

    @property
    def reached(self) -> int:
        """Gold cases this judge was asked about: those no earlier judge decided."""
        return self.calibration.cases

    @property
    def decided(self) -> int:
        return self.calibration.decided


@dataclass(frozen=True)
class Cascade:
    """Judges in order, then a person: what each decides and what the whole costs."""

    stages: tuple[Stage, ...]
    alpha: float
    delta: float
    cases: int
    coverage: Proportion
    """Gold cases the judges decided between them, of all, with its 95 % Clopper-Pearson
    interval; the rest go to a person."""
    errors: int
    """Of the cases the judges decided, those where the deciding judge disagreed with gold."""
    human_cost_per_review: float

    @property
    def name(self) -> str:
        return " → ".join(stage.judge for stage in self.stages)

    @property
    def thresholds(self) -> tuple[float | None, ...]:
        return tuple(stage.calibration.threshold for stage in self.stages)

    @property
    def guaranteed(self) -> bool:
        """Some judge decides alone with the guarantee; otherwise every answer goes to a person
        and the cascade is only a cost."""
        return any(threshold is not None for threshold in self.thresholds)

    @property
    def guaranteed_agreement(self) -> float | None:
        """1 - alpha, with probability at least 1 - delta, on everything the judges decide;
        None where they decide nothing."""
        return 1 - self.alpha if self.guaranteed else None

    @property
    def agreement(self) -> float:
        """Agreement with gold on the cases the judges decided, as observed; NaN where none."""
        decided = self.coverage.count
        return 1 - self.errors / decided if decided else float("nan")

    @property
    def shares(self) -> tuple[float, ...]:
        """The share of answers each judge decides, in order, then the person's share."""
        decided = [stage.decided / self.cases for stage in self.stages]
        return (*decided, 1 - self.coverage.count / self.cases)

    @property
    def cost_per_1k(self) -> float:
        """Per 1,000 answers: each judge's price on the answers that reach it, and a person's
        review of each answer no judge decides."""
        calls = sum(stage.cost_per_answer * stage.reached for stage in self.stages)
        reviews = self.human_cost_per_review * (self.cases - self.coverage.count)
        return PER_1K * (calls + reviews) / self.cases


def route(
    verdicts: Sequence[ArrayLike],
    confidences: Sequence[ArrayLike],
    thresholds: Sequence[float | None],
) -> NDArray[np.int64]:
    """Which judge decides each answer: the index of the first, in order, that decides it alone
    (`threshold.decides`); -1 for a person. A judge's arrays may hold NaN where it was not asked
    (an earlier judge decided): nothing is read from them there."""
    chosen = np.full(np.shape(verdicts[0]), -1, dtype=np.int64)
    for index, (verdict, confidence, threshold) in enumerate(
        zip(verdicts, confidences, thresholds, strict=True)
    ):
        chosen[(chosen < 0) & decides(verdict, confidence, threshold)] = index
    return chosen


def calibrate_cascade(
    judges: Sequence[Judge],
    gold: ArrayLike,
    alpha: float,
    delta: float,
    human_cost_per_review: float,
    min_decided: int = MIN_DECIDED,
) -> Cascade:
    """Calibrate judges in the order given, each on the gold cases no earlier judge decided, at
    delta / len(judges) each, so that with probability at least 1 - delta the cascade's agreement
    with gold on everything its judges decide is at least 1 - alpha. One judge is a cascade of
    one: `threshold.calibrate` at delta, and a person for the rest."""
    g = np.asarray(gold, dtype=float)
    share = delta / len(judges)
    waiting = np.ones(len(g), dtype=bool)
    wrong = 0
    stages = []
    for judge in judges:
        calibration = calibrate(
            judge.verdict[waiting],
            judge.confidence[waiting],
            g[waiting],
            alpha,
            share,
            min_decided,
        )
        decided = waiting & decides(judge.verdict, judge.confidence, calibration.threshold)
        wrong += int((judge.verdict[decided] != g[decided]).sum())
        waiting &= ~decided
        stages.append(Stage(judge.name, judge.cost_per_answer, calibration))
    return Cascade(
        stages=tuple(stages),
        alpha=alpha,
        delta=delta,
        cases=len(g),
        coverage=clopper_pearson(int((~waiting).sum()), len(g)),
        errors=wrong,
        human_cost_per_review=human_cost_per_review,
    )
