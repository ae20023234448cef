"""How many labels an audit needs, and how a stratified design spreads them.

From the judge's figures when it was picked (decision.json: `recall` is its sensitivity, its
specificity is 2 x `balanced_accuracy` - `recall`, and `failure_rate`) and the expected rate,
for a judge giving 0/1 verdicts whose failures strike at random and predict its answered rate
(the failure rule): PPI++ with its tuned lambda has the variance of the labels alone times
1 - rho^2 per label, rho the correlation between verdict and label, plus the predictions' own
part over the period's N answers. Both plans use the normal interval's half-width, z x se.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass

from farejudge.audit.stats.design import FLAGGED, PASSED
from farejudge.audit.stats.intervals import z_quantile


@dataclass(frozen=True)
class JudgeFigures:
    """What the judge was measured to do when it was picked."""

    sensitivity: float
    specificity: float
    failure_rate: float = 0.0

    def __post_init__(self) -> None:
        for name in ("sensitivity", "specificity"):
            if not 0 <= getattr(self, name) <= 1:
                raise ValueError(f"{name} must lie in [0, 1], not {getattr(self, name)}")
        if not 0 <= self.failure_rate < 1:
            raise ValueError(f"failure_rate must lie in [0, 1), not {self.failure_rate}")

    @classmethod
    def from_decision(
        cls, recall: float, balanced_accuracy: float, failure_rate: float = 0.0
    ) -> "JudgeFigures":
        """From decision.json's figures of the preferred judge."""
        return cls(recall, 2 * balanced_accuracy - recall, failure_rate)


@dataclass(frozen=True)
class Moments:
    """The label's and the filled-in verdict's variances and covariance, per answer."""

    label_variance: float
    prediction_variance: float
    covariance: float

    @property
    def correlation_squared(self) -> float:
        denominator = self.label_variance * self.prediction_variance
        return self.covariance**2 / denominator if denominator > 0 else 0.0


def moments(judge: JudgeFigures, rate: float) -> Moments:
    if not 0 < rate < 1:
        raise ValueError(f"the expected rate must lie strictly between 0 and 1, not {rate}")
    flagged = rate * judge.sensitivity + (1 - rate) * (1 - judge.specificity)
    answered = 1 - judge.failure_rate
    # A failure predicts the answered rate `flagged`: it adds nothing to either moment.
    return Moments(
        label_variance=rate * (1 - rate),
        prediction_variance=answered * flagged * (1 - flagged),
        covariance=answered * rate * (judge.sensitivity - flagged),
    )


@dataclass(frozen=True)
class SamplePlan:
    half_width: float
    alpha: float
    labels_ppi: int
    """Labels for the PPI++ interval to have `half_width`."""
    labels_only: int
    """Labels for the labels-only interval to have it."""
    correlation_squared: float
    """rho^2 between the judge's verdict and the label: the share of the variance it removes."""

    @property
    def labels_saved(self) -> int:
        return self.labels_only - self.labels_ppi


def plan_sample_size(
    judge: JudgeFigures,
    rate: float,
    half_width: float,
    alpha: float = 0.05,
    population: int | None = None,
) -> SamplePlan:
    """The labels needed for a 1 - alpha interval of `half_width` around an expected `rate`,
    by PPI++ over a period of `population` answers (None: as many as make their own part
    negligible) and by the labels alone."""
    if not 0 < half_width < 1:
        raise ValueError(f"the half-width must lie strictly between 0 and 1, not {half_width}")
    if population is not None and population < 1:
        raise ValueError(f"a period of {population} answers")
    m = moments(judge, rate)
    a = (half_width / z_quantile(alpha)) ** 2
    # With tuned lambda, se^2 = (s_y^2 - c^2 / (s^2 (1 + n/N))) / n: solved for n, a quadratic
    # A n^2 + B n + C = 0 with A >= 0 and C < 0, whose positive root is -2C / (B + sqrt(D)).
    s2, c2, sy2 = m.prediction_variance, m.covariance**2, m.label_variance
    inverse_n = 0.0 if population is None else 1 / population
    if s2 == 0:
        needed = sy2 / a
    else:
        big_a = a * s2 * inverse_n
        big_b = a * s2 - sy2 * s2 * inverse_n
        big_c = -(sy2 * s2 - c2)
        needed = -2 * big_c / (big_b + math.sqrt(big_b**2 - 4 * big_a * big_c))
    alone = sy2 / a
    if population is not None and math.ceil(needed) > population:
        raise ValueError(
            f"a half-width of {half_width} needs more labels than the period's {population} answers"
        )
    return SamplePlan(
        half_width=half_width,
        alpha=alpha,
        labels_ppi=math.ceil(needed),
        labels_only=math.ceil(alone),
        correlation_squared=m.correlation_squared,
    )


def verdict_spreads(judge: JudgeFigures, rate: float) -> dict[str, float]:
    """The label's standard deviation within each verdict stratum (`strata_by_verdict`), from
    the judge's figures: what a Neyman allocation weighs each stratum's size by."""
    moments(judge, rate)  # checks the rate
    flagged = rate * judge.sensitivity + (1 - rate) * (1 - judge.specificity)
    f = judge.failure_rate
    share = (1 - f) * flagged + f
    ungrounded_flagged = ((1 - f) * rate * judge.sensitivity + f * rate) / share
    passed = (1 - f) * (1 - flagged)
    ungrounded_passed = (1 - f) * rate * (1 - judge.sensitivity) / passed if passed > 0 else 0.0
    return {
        FLAGGED: math.sqrt(ungrounded_flagged * (1 - ungrounded_flagged)),
        PASSED: math.sqrt(ungrounded_passed * (1 - ungrounded_passed)),
    }


def neyman_allocation(
    size: int, population: Mapping[str, int], spreads: Mapping[str, float], minimum: int = 2
) -> dict[str, int]:
    """`size` draws spread over the strata in proportion to each one's size times its spread
    (Neyman's allocation, the narrowest stratified interval), every stratum with drafts getting
    at least `minimum` and at most all of its drafts; rounded by largest remainder.

    Labelling the flagged stratum beyond this allocation widens the interval rather than
    narrowing it, and lowers its coverage (docs/audit.md).
    """
    strata = sorted(name for name, count in population.items() if count > 0)
    total = sum(population[name] for name in strata)
    if not strata:
        raise ValueError("no drafts to allocate draws to")
    if size > total:
        raise ValueError(f"{size} draws from a population of {total}")
    if size < minimum * len(strata):
        raise ValueError(f"{size} draws cannot give each of {len(strata)} strata {minimum}")
    unknown = [name for name in strata if name not in spreads]
    if unknown:
        raise ValueError(f"stratum {unknown[0]!r} has no spread")
    # n_h = clip(c x size_h x spread_h, minimum, size_h), with c found by bisection so that the
    # n_h add up to `size` (their sum grows with c). A stratum of spread 0 keeps a hair of mass
    # so that it still takes draws once every other stratum is full.
    mass = {name: population[name] * (spreads[name] + 1e-9) for name in strata}
    low = {name: min(minimum, population[name]) for name in strata}

    def spread_with(c: float) -> dict[str, float]:
        return {name: min(max(c * mass[name], low[name]), population[name]) for name in strata}

    below, above = 0.0, max(population[name] / mass[name] for name in strata)
    for _ in range(200):
        middle = (below + above) / 2
        if sum(spread_with(middle).values()) < size:
            below = middle
        else:
            above = middle
    ideal = spread_with(above)
    found = {name: math.floor(value) for name, value in ideal.items()}
    # Largest remainder: the draws left go to the strata with the largest fractional parts.
    by_remainder = sorted(ideal, key=lambda name: (found[name] - ideal[name], name))
    for name in by_remainder[: size - sum(found.values())]:
        found[name] += 1
    return found
