"""The alternative annotator test: can a judge stand in for one of the annotators?

Calderon, Reichart and Dror (ACL 2025, "The Alternative Annotator Test for LLM-as-a-Judge"),
as their reference implementation (github.com/nitaytech/AltTest) computes it. Each annotator j
is left out in turn. On each item j labelled, the judge's alignment with the remaining
annotators (accuracy: the share of them it matches; or the negative RMSE of its score) is set
against j's own; the judge has the advantage where it aligns at least as well, j where j
does (both on a tie). The judge wins against j where j's advantage minus the judge's is
shown, one-sided, to be below ε, the margin that a judge's cost and speed buy: a t-test
at 30 items or more, and below that a Wilcoxon signed-rank test (the authors' FAQ). The
p-values are corrected over the annotators by Benjamini-Yekutieli (the authors'
`by_procedure`) at the level q. The winning rate ω is the share of annotators the judge wins
against; it passes at ω ≥ 0.5. The advantage probability rho is the mean over annotators of
the share of items where the judge has the advantage.

Items only one annotator labelled, or the judge did not judge, are left out (they have no
one to be compared with). Where the authors' code skips an annotator with fewer than 30 items,
this tests it with the Wilcoxon test and says that more items are needed.
"""

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import stdtr

from farejudge.raters._labels import Floats, label_matrix

EPSILON_EXPERT = 0.2
"""ε where the annotators are experts: reliable but expensive (the authors' rule of thumb)."""
EPSILON_SKILLED = 0.15
"""ε for skilled annotators: trained workers, students."""
EPSILON_CROWD = 0.1
"""ε for crowd workers."""
LEVEL = 0.05
"""The false discovery rate the annotators' tests are held to (the authors' q)."""
MIN_ANNOTATORS = 3
"""The authors recommend three annotators or more: with two, the judge is only set against
one other person, with no consensus to represent."""
MIN_ITEMS = 30
"""Items an annotator must share with the others for the t-test (the authors' minimum;
they recommend 50 to 100)."""

Scoring = Literal["accuracy", "neg_rmse"]


@dataclass(frozen=True)
class AnnotatorTest:
    """The judge against one left-out annotator."""

    annotator: int
    """The annotator's column in the label matrix."""
    items: int
    """Items it labelled that another annotator labelled and the judge judged."""
    advantage: float
    """rho_j: the share of those items where the judge aligns with the others at least as well."""
    test: Literal["t", "wilcoxon"]
    p_value: float
    """One-sided: the annotator's advantage less the judge's is below ε."""
    adjusted_p_value: float
    """Benjamini-Yekutieli over the annotators tested."""
    judge_wins: bool
    """The adjusted p-value is at or below the level."""


@dataclass(frozen=True)
class Shortfall:
    """What the test lacks for a verdict, and how many more it needs."""

    what: str
    """"annotators", or "items of annotator <j>"."""
    have: int
    need: int

    def __str__(self) -> str:
        more = self.need - self.have
        return f"{self.have} {self.what}, the test needs {self.need}: {more} more"


@dataclass(frozen=True)
class AltTest:
    """The alternative annotator test of one judge against one set of annotators."""

    epsilon: float
    level: float
    tests: tuple[AnnotatorTest, ...]
    """One per annotator with an item to compare, in column order."""
    winning_rate: float
    """ω: the share of annotators tested that the judge wins against; NaN where none was."""
    advantage_probability: float
    """rho: the annotators' mean rho_j; NaN where none was tested."""
    shortfalls: tuple[Shortfall, ...]
    """What falls short of the authors' minimums (three annotators, 30 items each)."""

    @property
    def passes(self) -> bool:
        """ω ≥ 0.5 with nothing short: only then may a report say the judge can replace an
        annotator."""
        return not self.shortfalls and self.winning_rate >= 0.5


def _alignment(predictions: Floats, others: Floats, scoring: Scoring) -> Floats:
    """Each item's alignment of `predictions` (items, or items by 1) with the other
    annotators' labels (items by annotators, NaN where missing)."""
    counted = ~np.isnan(others)
    if scoring == "accuracy":
        agree = (others == predictions) & counted
        result: Floats = agree.sum(axis=1) / counted.sum(axis=1)
    else:
        squared = np.where(counted, (predictions - others) ** 2, 0.0)
        result = -np.sqrt(squared.sum(axis=1) / counted.sum(axis=1))
    return result


def _t_test_below(differences: Floats, epsilon: float) -> float:
    """One-sided one-sample t-test that the mean of `differences` is below `epsilon`, as
    scipy.stats.ttest_1samp(..., alternative="less") computes it (without importing
    scipy.stats, a second of every command's start-up): 0 or 1 where the differences do
    not vary, NaN where they all equal ε."""
    n = len(differences)
    centred = differences - differences.mean()
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (differences.mean() - epsilon) / np.sqrt((centred @ centred) / (n - 1) / n)
    return float(stdtr(n - 1, t))


def _wilcoxon_below(differences: Floats, epsilon: float) -> float:
    """One-sided Wilcoxon signed-rank test that `differences` lie below `epsilon`; NaN where
    every difference equals ε (no rank to test)."""
    shifted = differences - epsilon
    if not shifted.any():
        return math.nan
    # Imported here: only an annotator with fewer than MIN_ITEMS items needs it, and
    # scipy.stats costs a second of start-up to every command that imports this package.
    from scipy.stats import wilcoxon

    return float(wilcoxon(shifted, alternative="less").pvalue)


def _benjamini_yekutieli(p_values: Floats) -> Floats:
    """Benjamini-Yekutieli adjusted p-values: a test is rejected at level q, as the authors'
    step-up `by_procedure` rejects it, where its adjusted p-value is at most q. NaN stays NaN
    and is never rejected."""
    adjusted = np.full(len(p_values), np.nan)
    tested = np.flatnonzero(~np.isnan(p_values))
    m = len(tested)
    if m == 0:
        return adjusted
    harmonic = np.sum(1.0 / np.arange(1, m + 1))
    order = tested[np.argsort(p_values[tested], kind="stable")]
    scaled = p_values[order] * m * harmonic / np.arange(1, m + 1)
    adjusted[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return adjusted


def alt_test(
    labels: ArrayLike,
    judge: ArrayLike,
    epsilon: float,
    *,
    level: float = LEVEL,
    scoring: Scoring = "accuracy",
) -> AltTest:
    """The alternative annotator test of `judge` (a label or score per item, NaN where it
    gave none) against the annotators of `labels` (items by annotators, NaN where missing).

    Below two annotators nothing can be tested: the result has no test, ω and rho NaN. Below
    three annotators, or where an annotator shares fewer than 30 items with the others, the
    figures are computed and the shortfall is named: `passes` is then false.
    """
    found = label_matrix(labels)
    verdicts = np.array(judge, dtype=float)
    if verdicts.shape != (found.shape[0],):
        raise ValueError(
            f"judge must give one value per item: {found.shape[0]} items, "
            f"not shape {verdicts.shape}"
        )
    observed = ~np.isnan(found)
    kept = (observed.sum(axis=1) >= 2) & ~np.isnan(verdicts)
    found, verdicts, observed = found[kept], verdicts[kept], observed[kept]
    annotators = found.shape[1]
    shortfalls: list[Shortfall] = []
    if annotators < MIN_ANNOTATORS:
        shortfalls.append(Shortfall("annotators", annotators, MIN_ANNOTATORS))
    columns: list[int] = []
    p_values: list[float] = []
    advantages: list[float] = []
    counts: list[int] = []
    # One annotator has no one to be compared with: no test, and only that shortfall.
    for j in range(annotators if annotators >= 2 else 0):
        rows = observed[:, j]
        if not rows.any():
            shortfalls.append(Shortfall(f"items of annotator {j}", 0, MIN_ITEMS))
            continue
        others = np.delete(found[rows], j, axis=1)
        own = _alignment(found[rows, j : j + 1], others, scoring)
        judged = _alignment(verdicts[rows, None], others, scoring)
        judge_ahead = (judged >= own).astype(float)
        differences = (own >= judged).astype(float) - judge_ahead
        items = int(rows.sum())
        if items < MIN_ITEMS:
            shortfalls.append(Shortfall(f"items of annotator {j}", items, MIN_ITEMS))
            p_values.append(_wilcoxon_below(differences, epsilon))
        else:
            p_values.append(_t_test_below(differences, epsilon))
        columns.append(j)
        advantages.append(float(judge_ahead.mean()))
        counts.append(items)
    adjusted = _benjamini_yekutieli(np.array(p_values))
    tests = tuple(
        AnnotatorTest(
            annotator=j,
            items=items,
            advantage=advantage,
            test="t" if items >= MIN_ITEMS else "wilcoxon",
            p_value=p,
            adjusted_p_value=float(q),
            judge_wins=bool(q <= level),
        )
        for j, items, advantage, p, q in zip(
            columns, counts, advantages, p_values, adjusted, strict=True
        )
    )
    return AltTest(
        epsilon=epsilon,
        level=level,
        tests=tests,
        winning_rate=float(np.mean([t.judge_wins for t in tests])) if tests else math.nan,
        advantage_probability=float(np.mean(advantages)) if tests else math.nan,
        shortfalls=tuple(shortfalls),
    )
