"""The pick under constraints: screening, ranking, the test against the runner-up, preference."""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from farejudge.comparison.deploy.frontier import Floats
from farejudge.comparison.graded.paired import DeLong, delong_test
from farejudge.comparison.stats.intervals import mcnemar_exact
from farejudge.core.decision_file import Preference, Quality

ALPHA = 0.05


GUARANTEED = "guaranteed_agreement"
"""The agreement with gold a candidate guarantees at delta (selective judging): NaN where it
guarantees none, which fails `--min-agreement` rather than leaving it unchecked."""


ATTACKED = "attack_success"
"""A run's highest attack success over the adversarial suite's families: NaN for a candidate
with no attacked case (a panel, a run of the gold set), which leaves it unchecked."""


ALT_TESTED = "alt_test"
"""1 where a candidate passes the alternative annotator test, 0 where it does not; NaN where it
has none (no annotators, a cascade), which fails `--require-alt-test`."""


@dataclass(frozen=True)
class Constraints:
    """What a candidate must meet, at its point estimates; None is no constraint."""

    max_cost_per_1k: float | None = None
    min_recall: float | None = None
    max_failure_rate: float | None = None
    max_p95_latency: float | None = None
    min_agreement: float | None = None
    """The agreement with gold a candidate must guarantee at `delta` (selective judging)."""
    delta: float | None = None
    """The level of that guarantee; given with it."""
    max_attack_success: float | None = None
    """The highest attack success over the adversarial suite's families (`ATTACKED`)."""

    require_alt_test: bool = False
    """Only candidates that pass the alternative annotator test (`ALT_TESTED`)."""

    def given(self) -> dict[str, float]:
        return {
            name: value
            for name, value in (
                ("max_cost_per_1k", self.max_cost_per_1k),
                ("min_recall", self.min_recall),
                ("max_failure_rate", self.max_failure_rate),
                ("max_p95_latency", self.max_p95_latency),
                ("min_agreement", self.min_agreement),
                ("max_attack_success", self.max_attack_success),
                ("require_alt_test", 1.0 if self.require_alt_test else None),
            )
            if value is not None
        }


CONSTRAINED: dict[str, tuple[str, int]] = {
    "max_cost_per_1k": ("cost_per_1k", 1),
    "min_recall": ("recall", -1),
    "max_failure_rate": ("failure_rate", 1),
    "max_p95_latency": ("latency_p95", 1),
    "min_agreement": (GUARANTEED, -1),
    "max_attack_success": (ATTACKED, 1),
    "require_alt_test": (ALT_TESTED, -1),
}
"""Constraint → the figure it bounds, and 1 for an upper bound, -1 for a lower one."""


@dataclass(frozen=True)
class Screened:
    failed: list[str]
    """The constraints the candidate does not meet."""
    unchecked: list[str]
    """The constraints whose figure is unknown for it (no cost recorded, no timing): they
    exclude nothing, and are said to be unchecked."""

    @property
    def meets(self) -> bool:
        return not self.failed


def screen(point: dict[str, float], constraints: Constraints) -> Screened:
    failed, unchecked = [], []
    for name, bound in constraints.given().items():
        figure, sign = CONSTRAINED[name]
        value = point[figure]
        if math.isnan(value) and figure in (GUARANTEED, ALT_TESTED):
            failed.append(name)
        elif math.isnan(value):
            unchecked.append(name)
        elif sign * (value - bound) > 0:
            failed.append(name)
    return Screened(failed, unchecked)


COST_DIGITS = 9
"""Decimals of a cost per 1,000 answers that rank candidates cheapest first."""


def _cost_key(cost: float) -> float:
    return math.inf if math.isnan(cost) else cost


def ranking(
    points: Sequence[dict[str, float]],
    eligible: Sequence[bool],
    quality: Quality,
    cheapest_first: bool = False,
) -> list[int]:
    """The eligible candidates with a defined quality, best first: by quality, then the
    cheaper (an unknown cost last), then the fewer failures, then as given. `cheapest_first`
    (a guaranteed agreement is a constraint): by cost, then quality, then the same."""
    chosen = [i for i, ok in enumerate(eligible) if ok and not math.isnan(points[i][quality])]

    def key(i: int) -> tuple[float, ...]:
        cost = _cost_key(points[i]["cost_per_1k"])
        if cheapest_first:
            # Rounded: the same calls priced along two paths differ in the last bits.
            return (round(cost, COST_DIGITS), -points[i][quality], points[i]["failure_rate"], i)
        return (-points[i][quality], cost, points[i]["failure_rate"], i)

    return sorted(chosen, key=key)


def most_excluding(screened: Sequence[Screened]) -> tuple[list[str], int]:
    """The constraints that excluded the most candidates (all those tied), and how many."""
    counts = {name: 0 for s in screened for name in s.failed}
    for s in screened:
        for name in s.failed:
            counts[name] += 1
    if not counts:
        return [], 0
    most = max(counts.values())
    return [name for name in CONSTRAINED if counts.get(name) == most], most


@dataclass(frozen=True)
class PickTest:
    """The pick against the runner-up on the cases both judged with identical content."""

    cases: int
    pick_only: int
    """Cases the pick's verdict got right and the runner-up's wrong."""
    runner_up_only: int
    mcnemar_p: float
    """Exact McNemar test on those discordant cases."""
    delong: DeLong | None
    """DeLong's test of the two graded scores (runner-up before, pick after), where both
    have graded scores; over the paired cases with a score in both."""
    graded_cases: int
    by_score: bool
    """Whether DeLong decides: both candidates flag by a cut-off on their graded score, so
    their ranking is what is deployed; otherwise their verdicts are, and McNemar decides."""

    @property
    def method(self) -> Literal["DeLong", "exact McNemar"]:
        return "DeLong" if self.by_score else "exact McNemar"

    @property
    def p_value(self) -> float:
        return self.delong.p_value if self.by_score and self.delong else self.mcnemar_p

    @property
    def significant(self) -> bool:
        """The pick is better at 0.05 by the test of its operating point, and ahead by it."""
        if self.by_score and self.delong:
            ahead = self.delong.change.estimate > 0
        else:
            ahead = self.pick_only > self.runner_up_only
        return ahead and self.p_value < ALPHA


def pick_test(
    pick_right: NDArray[np.bool_],
    runner_up_right: NDArray[np.bool_],
    graded: tuple[Floats, Floats, Floats] | None = None,
    cut_off: bool = False,
) -> PickTest:
    """`pick_right`, `runner_up_right`: per paired case, whether each one's verdict is right;
    `graded`: gold (1 ungrounded) and the pick's and the runner-up's scores on the paired
    cases where both have one, when both have graded scores; `cut_off`: whether both flag by
    a cut-off on them (then DeLong decides, where it is defined)."""
    pick_only = int((pick_right & ~runner_up_right).sum())
    runner_up_only = int((runner_up_right & ~pick_right).sum())
    delong = None
    if graded is not None and len(graded[0]):
        gold, pick_score, runner_up_score = graded
        delong = delong_test(gold, runner_up_score, pick_score)
        if math.isnan(delong.p_value):
            delong = None
    return PickTest(
        cases=len(pick_right),
        pick_only=pick_only,
        runner_up_only=runner_up_only,
        mcnemar_p=mcnemar_exact(pick_only, runner_up_only),
        delong=delong,
        graded_cases=len(graded[0]) if graded is not None else 0,
        by_score=cut_off and delong is not None,
    )


def prefer(
    pick: dict[str, float], runner_up: dict[str, float], test: PickTest
) -> tuple[bool, Preference]:
    """Whether to prefer the runner-up to the pick, and why. A pick significantly better is
    kept; else the cheaper of the two per 1,000 answers is preferred (the pick at the same
    cost); where a cost is unknown, the faster at the 95th percentile; where that is unknown
    too, the pick."""
    if test.significant:
        return False, "significant"
    cost, other = pick["cost_per_1k"], runner_up["cost_per_1k"]
    if not (math.isnan(cost) or math.isnan(other)):
        return (other < cost, "cheaper") if other != cost else (False, "same cost")
    slow, fast = pick["latency_p95"], runner_up["latency_p95"]
    if not (math.isnan(slow) or math.isnan(fast)):
        return fast < slow, "faster"
    return False, "unknown"
