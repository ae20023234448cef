"""Every cascade of a few judges, priced, and the cheapest that meets a minimum agreement: the
enumeration the escalation tests and the guide's worked example check by hand.

judge-compare enumerates and prices cascades through the deploy decision
(comparison/escalation/results.py); this is the same calibration
(`comparison.escalation.cascade.calibrate_cascade`) over every ordered chain, kept apart for the
tests that count costs by hand.
"""

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from numpy.typing import ArrayLike

from farejudge.comparison.escalation.cascade import PER_1K, Cascade, Judge, calibrate_cascade
from farejudge.comparison.escalation.threshold import MIN_DECIDED


@dataclass(frozen=True)
class CascadeChoice:
    """Every cascade tried at a minimum agreement, cheapest first, and the pick."""

    min_agreement: float
    delta: float
    cascades: tuple[Cascade, ...]
    """Each judge alone and each chain of two or three in order of cost, cheapest first (ties
    in the order they were built)."""
    people_only_cost_per_1k: float
    """A person reviewing every answer: what any cascade saves against."""

    @property
    def cheapest(self) -> Cascade | None:
        """The cheapest cascade whose judges decide some answers with the guarantee; None where
        no cascade's judges can decide any at this minimum agreement and delta."""
        return next((cascade for cascade in self.cascades if cascade.guaranteed), None)


def cheapest_cascade(
    judges: Sequence[Judge],
    gold: ArrayLike,
    min_agreement: float,
    delta: float,
    human_cost_per_review: float,
    longest: int = 3,
    min_decided: int = MIN_DECIDED,
) -> CascadeChoice:
    """Every cascade of the candidates, each calibrated at alpha = 1 - min_agreement, priced, and
    the cheapest that meets the minimum agreement at delta.

    The candidates are put in order of cost per answer (ties kept in the order given), and the
    cascades are each judge alone and every ordered chain of up to `longest` of them, cheaper
    judges first: a stronger judge after a cheaper one, never before. A cascade meets the
    minimum when its judges decide some answers alone (`Cascade.guaranteed`): by construction
    its agreement on what they decide is then at least min_agreement with probability at least
    1 - delta, and its cost prices both their calls and the people who review the rest.
    """
    ordered = sorted(judges, key=lambda judge: judge.cost_per_answer)
    # Rounded: 1 - 0.9 is 0.09999999999999998 in floating point.
    alpha = round(1 - min_agreement, 12)
    built = [
        calibrate_cascade(chain, gold, alpha, delta, human_cost_per_review, min_decided)
        for length in range(1, longest + 1)
        for chain in itertools.combinations(ordered, length)
    ]
    return CascadeChoice(
        min_agreement=min_agreement,
        delta=delta,
        cascades=tuple(sorted(built, key=lambda cascade: cascade.cost_per_1k)),
        people_only_cost_per_1k=PER_1K * human_cost_per_review,
    )
