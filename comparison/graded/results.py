"""The graded results from the per-case frame: each run's graded figures, and version pairs.

A case with no graded score (a judge failure in every epoch, a provider without logprobs, a
log from before graded scores) is in no graded figure; it is counted, with why. Between
versions, cases are paired as the verdict flips are: same model, consecutive versions,
the same id with identical content (case hash) in both runs, here with a graded score in both.
"""

import itertools
from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from farejudge.comparison.graded.figures import BUDGETS, GradedFigures, graded_figures
from farejudge.comparison.graded.paired import (
    DeLong,
    PairedBrier,
    auc_detectable_change,
    delong_test,
    paired_brier,
)
from farejudge.comparison.stats.bootstrap import Resampling

NO_SCORE = "no graded score in the log"
ALL_FAILED = "judge failure in every epoch"


@dataclass(frozen=True)
class GradedSummary:
    version: str
    model: str
    graded: int
    """Cases with a graded score: the ones every figure is over."""
    ungraded: dict[str, int]
    """Why the other cases have none → how many."""
    sources: dict[str, int]
    """Graded source ("logprobs", "epochs") → cases with a graded score from it."""
    verdict_only: int
    """Cases whose graded score comes from a single epoch: the verdict itself, 0 or 1."""
    figures: GradedFigures | None
    """None when no case has a graded score."""


@dataclass(frozen=True)
class GradedComparison:
    model: str
    before: str
    after: str
    paired: int
    """Cases with identical content in both runs and a graded score in both."""
    unpaired: int
    """Cases with identical content in both runs but a graded score in only one, or none."""
    delong: DeLong
    auc_detectable_change: float
    """The smallest AUC change these cases detect (normal approximation from the DeLong
    deviation, alpha 0.05, 80 % power); NaN when undefined."""
    brier: PairedBrier


@dataclass(frozen=True)
class GradedResults:
    summaries: list[GradedSummary]
    comparisons: list[GradedComparison]
    target_recall: float
    budgets: tuple[float, ...]


def _ungraded_reasons(rows: pd.DataFrame) -> dict[str, int]:
    reasons = np.where(rows["failure"].to_numpy(float) >= 1, ALL_FAILED, NO_SCORE)
    return dict(sorted(Counter(str(r) for r in reasons).items()))


def _summary(
    version: str, model: str, rows: pd.DataFrame, target_recall: float, resampling: Resampling
) -> GradedSummary:
    has = rows["p_ungrounded"].notna()
    graded = rows[has]
    from_epochs = graded["graded_source"] == "epochs"
    return GradedSummary(
        version=version,
        model=model,
        graded=len(graded),
        ungraded=_ungraded_reasons(rows[~has]),
        sources=dict(sorted(Counter(str(s) for s in graded["graded_source"]).items())),
        verdict_only=int((from_epochs & (graded["epochs"] == 1)).sum()),
        figures=graded_figures(
            graded["gold_ungrounded"].to_numpy(float),
            graded["p_ungrounded"].to_numpy(float),
            resampling,
            target_recall=target_recall,
        )
        if len(graded)
        else None,
    )


def _comparison(
    model: str, before: str, after: str, cases: pd.DataFrame, resampling: Resampling
) -> GradedComparison:
    def run(version: str) -> pd.DataFrame:
        rows = cases[(cases["version"] == version) & (cases["model"] == model)]
        return rows.set_index("case")[["case_hash", "gold_ungrounded", "p_ungrounded"]]

    both = (
        run(before)
        .merge(run(after), left_index=True, right_index=True, suffixes=("_a", "_b"))
        .sort_index()
    )
    same = both[both["case_hash_a"] == both["case_hash_b"]]
    pair = same[same["p_ungrounded_a"].notna() & same["p_ungrounded_b"].notna()]
    gold = pair["gold_ungrounded_b"].to_numpy(float)
    a, b = pair["p_ungrounded_a"].to_numpy(float), pair["p_ungrounded_b"].to_numpy(float)
    delong = delong_test(gold, a, b)
    return GradedComparison(
        model=model,
        before=before,
        after=after,
        paired=len(pair),
        unpaired=len(same) - len(pair),
        delong=delong,
        auc_detectable_change=auc_detectable_change(delong.sd),
        brier=paired_brier(gold, a, b, resampling),
    )


def graded_results(
    cases: pd.DataFrame,
    versions: list[str],
    models: list[str],
    resampling: Resampling,
    target_recall: float = 0.9,
) -> GradedResults:
    """Per run (cases in the frame's order of runs) and per consecutive pair of versions."""
    if not 0 < target_recall <= 1:
        raise ValueError(f"target recall {target_recall} is not in (0, 1]")
    summaries = [
        _summary(str(v), str(m), rows, target_recall, resampling)
        for (v, m), rows in cases.groupby(["version", "model"], sort=False)
    ]
    present = {(s.version, s.model) for s in summaries}
    comparisons = [
        _comparison(model, before, after, cases, resampling)
        for model in models
        for before, after in itertools.pairwise(versions)
        if (before, model) in present and (after, model) in present
    ]
    return GradedResults(summaries, comparisons, target_recall, BUDGETS)
