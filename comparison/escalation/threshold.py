"""One judge's confidence threshold, calibrated on gold so that its agreement with the humans on
the answers it decides alone is at least 1 - alpha with probability at least 1 - delta.

The calibration is Trust or Escalate's (Jung, Brahman and Choi, ICLR 2025, arXiv:2407.18370;
read here in the authors' released code, `SelectiveClassificationUtil.lambda_hat` in
github.com/jaehunjung1/cascaded-selective-evaluation, cascaded_evaluation/util.py, which tests
an exact binomial upper confidence bound, equivalent to the p-value below). For each threshold
t, the null hypothesis "the judge's error rate on the cases whose confidence is at least t is
above alpha" is tested with the exact binomial p-value P(Bin(n(t), alpha) <= errors(t)), the
thresholds in a fixed sequence from the strictest down, and the threshold returned is the last
one rejected before the first that is not. Fixed-sequence testing controls the family-wise
error at delta (Learn then Test: Angelopoulos, Bates, Candès, Jordan and Lei, 2021,
arXiv:2110.01052), so with probability at least 1 - delta over the draw of the gold cases, the
error rate at the returned threshold is at most alpha.

Where this departs from the released code:
- The grid: the released code tries 5,000 evenly spaced thresholds, in effect every distinct
  confidence; here a fixed grid of 21 (`GRID`), which kept the guarantee and decided more in
  simulation.
- Where the sequence opens: the released code opens on the strictest threshold deciding 30
  calibration cases; here on the strictest deciding 30 and at least as many as could pass at all
  (`binomial.smallest_testable`: 33 at alpha 0.1 and a cascade's delta 0.1 / 3, where opening on
  30 could never pass).
- What is claimed when nothing passes: the released code then returns its strictest threshold
  (and a cascade's judge with too few cases inherits the previous judge's threshold), claiming
  what it has not shown; here no threshold is returned, nothing is decided alone, and the result
  says what could be guaranteed instead.
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from farejudge.comparison.escalation.binomial import (
    Floats,
    Proportion,
    cases_to_reject,
    clopper_pearson,
    lowest_testable_alpha,
    p_values,
    smallest_testable,
    upper_bounds,
)

GRID: Floats = np.round(np.linspace(0.5, 1.0, 21), 3)
"""The thresholds tried by default: 0.5 to 1 in steps of 0.025, fixed before any data is seen.

Learn then Test's guarantee is for a family of thresholds fixed in advance, as this grid is (a
grid of the confidences observed is not). A verdict's confidence is at least 0.5 where it is the
likelier verdict (`scorers.escalation.confidence_of`), and a threshold of 1 decides only
unanimous or certain verdicts. Of the grids tried by simulation (steps of 0.01, 0.025 and 0.05,
and every distinct confidence observed; the test of the grids in
tests/comparison/escalation/test_guarantee.py), every one kept the guarantee and this one
decided the most answers alone: a step per observed confidence lets one unlucky error near the
top end the sequence, and coarse steps lose coverage. Discrete confidences (epochs, a panel's
vote share) lose nothing: each grid point decides the same cases as the observed level at or
just above it."""

MIN_DECIDED = 30
"""The fewest gold cases a threshold must decide to be tested, the released code's rule ("make
sure there's data for top bin": a threshold is a candidate only if 30 calibration cases reach
it). A threshold deciding fewer cases than `binomial.smallest_testable` can never pass and
would end the sequence at once; one deciding only a few more can pass only if every one of its
cases is right. The floor depends on the confidences alone, never on the labels."""


@dataclass(frozen=True)
class ThresholdTest:
    """One threshold's test: the gold cases it decides, how many of those the judge got wrong,
    and the exact binomial p-value of "its error rate there is above alpha"."""

    threshold: float
    decided: int
    errors: int
    p_value: float
    rejected: bool
    """p_value <= delta: the error rate at this threshold is certified at most alpha."""


@dataclass(frozen=True)
class CasesNeeded:
    """How many gold cases alpha would need, if the judge kept the record it has at `threshold`:
    the threshold the sequence opened on at alpha (or, if no threshold decides enough cases to
    open it, the loosest threshold: every graded case)."""

    cases: int | None
    """The smallest gold set at which that record passes the exact test
    (`binomial.cases_to_reject`); None where no number of cases would do: the judge is wrong on
    alpha or more of what it decides there."""
    threshold: float
    decided: int
    errors: int


@dataclass(frozen=True)
class Calibration:
    """A judge's threshold at alpha and delta on a gold set, and what it decides alone."""

    alpha: float
    delta: float
    """The level this judge was tested at: the cascade's delta shared among its judges."""
    cases: int
    """Gold cases, judge failures included."""
    failures: int
    """Cases with no verdict or no confidence: never decided alone, whatever the threshold."""
    first_decided: int
    """The sequence opens on the strictest threshold deciding at least this many cases: the
    larger of `MIN_DECIDED` and the fewest that can reject at alpha and delta at all."""
    threshold: float | None
    """Decide alone at confidence >= threshold; None where no threshold meets alpha at delta
    (then the judge decides nothing alone)."""
    tests: tuple[ThresholdTest, ...]
    """The thresholds tested, strictest first, up to and including the first not rejected (all
    of them if every one was)."""
    errors: int
    """Of the cases decided alone, those where the judge disagreed with gold."""
    coverage: Proportion
    """Cases decided alone of all `cases`, with its 95 % Clopper-Pearson interval."""
    best_alpha: float | None
    """The smallest alpha for which this procedure finds a threshold at this delta on these
    cases, exact (`best_alpha`); None where no alpha below 1 does."""
    needed: CasesNeeded | None
    """Where no threshold meets alpha: the gold cases it would take. None where one does, or the
    judge graded no case."""

    @property
    def decided(self) -> int:
        return self.coverage.count

    @property
    def agreement(self) -> float:
        """Agreement with gold on the cases decided alone, as observed; NaN where none is."""
        return 1 - self.errors / self.decided if self.decided else float("nan")

    @property
    def guaranteed_agreement(self) -> float | None:
        """1 - alpha where a threshold was found; None where nothing is guaranteed."""
        return None if self.threshold is None else 1 - self.alpha


def _grid(
    grid: Floats, confidence: Floats, wrong: NDArray[np.bool_]
) -> tuple[Floats, NDArray[np.int64], NDArray[np.int64]]:
    """The grid's thresholds, strictest first, with the cases each decides and the errors among
    them. Thresholds that decide the same gold cases (no confidence falls between them) are one
    test, with one outcome for all: the strictest of them is kept. Had the sequence gone on to
    the looser ones it would have rejected them too, and every hypothesis rejected is covered
    by the guarantee, so either is valid; the strictest reads as the confidence the judge's
    cases reach (0.8, not 0.625, for five epochs' 0.8), and does not decide on trust the answers
    in a band of confidence no gold case fell in. Thresholds that decide nothing are left out."""
    ranked = np.sort(confidence)[::-1]
    errors = np.append(0, np.cumsum(wrong[np.argsort(-confidence, kind="stable")]))
    thresholds = np.sort(np.unique(grid))[::-1]
    # Cases at or above each threshold: the ranked confidences are descending.
    decided = np.searchsorted(-ranked, -thresholds, side="right")
    strictest = np.append(True, decided[1:] != decided[:-1]) & (decided > 0)
    return thresholds[strictest], decided[strictest], errors[decided[strictest]]


def best_alpha(
    decided: NDArray[np.int64], errors: NDArray[np.int64], delta: float, min_decided: int
) -> float | None:
    """The smallest alpha at which fixed-sequence testing finds a threshold, exactly.

    At a given alpha the sequence opens on the strictest threshold deciding at least
    max(min_decided, smallest_testable(alpha, delta)) cases, and finds a threshold exactly when
    that first test rejects: alpha at least that threshold's exact upper bound
    (`binomial.upper_bounds`). The opening threshold moves with alpha: it is the j-th of those
    deciding min_decided or more for alpha in [testable(n_j), testable(n_(j-1))), where
    testable(n) = 1 - delta^(1/n). So the answer is the least upper bound U_j that falls in its
    own interval, U_j < testable(n_(j-1)) (U_j >= testable(n_j) always). `decided` and `errors`
    are the grid's counts, strictest first.
    """
    eligible = decided >= min_decided
    n, k = decided[eligible], errors[eligible]
    if len(n) == 0:
        return None
    bounds = upper_bounds(k, n, delta)
    opens_below = np.append(1.0, lowest_testable_alpha(n[:-1], delta))
    feasible = bounds < opens_below
    return float(bounds[feasible].min()) if feasible.any() else None


def calibrate(
    verdict: ArrayLike,
    confidence: ArrayLike,
    gold: ArrayLike,
    alpha: float,
    delta: float,
    min_decided: int = MIN_DECIDED,
    grid: ArrayLike = GRID,
) -> Calibration:
    """A judge's threshold by fixed-sequence testing over its gold cases.

    verdict: per gold case, 1 ungrounded, 0 grounded, NaN for a judge failure. confidence: per
    case, in [0, 1] (`scorers.escalation.confidence_of`), NaN where there is none. gold: per
    case, 1 or 0. The thresholds tried are the grid's (`GRID` unless given; `_grid`),
    strictest first, from the strictest deciding at least `first_decided` cases
    (`Calibration.first_decided`); each is tested at level `delta` with the exact binomial
    p-value. A judge failure is never decided alone: it counts in the cases and the coverage's
    denominator, and is always escalated. alpha and delta must be in (0, 1)
    (`scorers.escalation` checks them where a person gives them).
    """
    if not (0 < alpha < 1 and 0 < delta < 1):
        raise ValueError(f"alpha {alpha} and delta {delta} must both be in (0, 1)")
    v = np.asarray(verdict, dtype=float)
    c = np.asarray(confidence, dtype=float)
    g = np.asarray(gold, dtype=float)
    if not v.shape == c.shape == g.shape:
        raise ValueError(
            f"one verdict, confidence and gold per case: {v.shape}, {c.shape}, {g.shape}"
        )
    graded = ~np.isnan(v) & ~np.isnan(c)
    thresholds, decided, errors = _grid(
        np.asarray(grid, dtype=float), c[graded], v[graded] != g[graded]
    )
    first_decided = max(min_decided, smallest_testable(alpha, delta))
    opening = int(np.searchsorted(decided, first_decided))
    p = p_values(errors[opening:], decided[opening:], alpha)
    rejected = p <= delta
    stop = int(np.argmin(rejected)) if not rejected.all() else len(rejected)
    tests = tuple(
        ThresholdTest(float(t), int(n), int(k), float(pv), bool(r))
        for t, n, k, pv, r in zip(
            thresholds[opening:][: stop + 1],
            decided[opening:][: stop + 1],
            errors[opening:][: stop + 1],
            p[: stop + 1],
            rejected[: stop + 1],
            strict=True,
        )
    )
    chosen = tests[stop - 1] if stop > 0 else None
    needed = None
    if chosen is None and len(decided):
        at = min(opening, len(decided) - 1)
        needed = CasesNeeded(
            cases_to_reject(int(errors[at]), int(decided[at]), len(v), alpha, delta),
            float(thresholds[at]),
            int(decided[at]),
            int(errors[at]),
        )
    return Calibration(
        alpha=alpha,
        delta=delta,
        cases=len(v),
        failures=int((~graded).sum()),
        first_decided=first_decided,
        threshold=None if chosen is None else chosen.threshold,
        tests=tests,
        errors=0 if chosen is None else chosen.errors,
        coverage=clopper_pearson(0 if chosen is None else chosen.decided, len(v)),
        best_alpha=best_alpha(decided, errors, delta, min_decided),
        needed=needed,
    )
