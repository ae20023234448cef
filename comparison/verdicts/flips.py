"""Fixed and broken cases between consecutive versions: pairing, flips, McNemar, the change.

Cases pair by id and content; the accuracy change has a paired bootstrap interval, and exact
McNemar the smallest change it detects.
"""

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.logs.frame import LogsError, Runs
from farejudge.comparison.stats.bootstrap import column_ratio, statistic_values
from farejudge.comparison.stats.intervals import (
    Interval,
    mcnemar_detectable_change,
    mcnemar_exact,
    percentile_interval,
)
from farejudge.core.sample_case import GOLD_RELATION


@dataclass(frozen=True)
class Flip:
    case: str
    category: str
    before: str
    """The judge's verdict (most common over epochs) on the earlier version."""
    after: str


@dataclass(frozen=True)
class Transition:
    """Case flips between consecutive versions on one model."""

    model: str
    before: str
    after: str
    shared: int
    """Cases both versions scored with identical content."""
    changed: list[str]
    """Cases both versions scored whose content differs between the runs: not compared."""
    fixed: list[Flip]
    broken: list[Flip]
    p_value: float
    """Exact McNemar test on the fixed and broken counts."""
    accuracy_change: Interval
    """Accuracy after minus before, over the shared cases (paired bootstrap)."""
    detectable_change: float
    """The smallest accuracy change these shared cases detect (exact McNemar, 80 % power,
    at the observed discordance); NaN when none can be."""


def relation_of(case: str) -> str:
    """A derived case's id is `<parent>~<relation>`; a gold case's relation is "gold"."""
    return case.split("~", 1)[1] if "~" in case else GOLD_RELATION


@dataclass(frozen=True)
class RelationChange:
    """Fixed and broken cases of one relation between two versions on one model."""

    transition: Transition
    relation: str
    fixed: int
    broken: int
    p_value: float


def relation_changes(transition: Transition) -> list[RelationChange]:
    """Per relation with any flip: which way a prompt change moved it, and how surely."""
    fixed = Counter(relation_of(f.case) for f in transition.fixed)
    broken = Counter(relation_of(f.case) for f in transition.broken)
    return [
        RelationChange(transition, r, fixed[r], broken[r], mcnemar_exact(fixed[r], broken[r]))
        for r in sorted(set(fixed) | set(broken))
    ]


def paired(model: str, before: str, after: str, cases: pd.DataFrame) -> pd.DataFrame:
    """The cases both runs scored, side by side by case id (suffixes _a and _b)."""

    def run(version: str) -> pd.DataFrame:
        rows = cases[(cases["version"] == version) & (cases["model"] == model)]
        return rows.set_index("case")[["case_hash", "category", "agree", "right", "verdict"]]

    both = (
        run(before)
        .merge(run(after), left_index=True, right_index=True, suffixes=("_a", "_b"))
        .sort_index()
    )
    # A case whose content changed is another case under the same id: never a flip.
    return both.assign(same=both["case_hash_a"] == both["case_hash_b"])


def gains(both: pd.DataFrame) -> NDArray[np.float64]:
    """Per shared case, its accuracy gain and a one: the rows the accuracy change resamples."""
    pair = both[both["same"]]
    gain = pair["agree_b"].to_numpy(float) - pair["agree_a"].to_numpy(float)
    return np.column_stack([gain, np.ones(len(pair))])


def transition(
    model: str, before: str, after: str, both: pd.DataFrame, resampled: NDArray[np.float64]
) -> Transition:
    """`both`: the runs' cases side by side (`paired`); `resampled`: the column totals of
    their `gains` in each bootstrap resample."""
    same = both["same"]
    pair = both[same]

    def flips(mask: pd.Series) -> list[Flip]:
        found = pair[mask]
        return [
            Flip(case=str(case), category=str(category), before=str(a), after=str(b))
            for case, category, a, b in zip(
                found.index,
                found["category_b"],
                found["verdict_a"],
                found["verdict_b"],
                strict=True,
            )
        ]

    fixed = flips(pair["right_b"] & ~pair["right_a"])
    broken = flips(pair["right_a"] & ~pair["right_b"])
    change = column_ratio(0, 1)
    return Transition(
        model=model,
        before=before,
        after=after,
        shared=len(pair),
        changed=[str(case) for case in both.index[~same]],
        fixed=fixed,
        broken=broken,
        p_value=mcnemar_exact(len(fixed), len(broken)),
        detectable_change=mcnemar_detectable_change(
            len(pair), (len(fixed) + len(broken)) / len(pair) if len(pair) else 0.0
        ),
        accuracy_change=percentile_interval(
            change(gains(both).sum(axis=0)), statistic_values(change, resampled)
        ),
    )


def require_common_cases(runs: Runs, model: str, before: str, after: str) -> None:
    """Two runs to compare must hold at least one identical case, or the pairing is empty."""
    a, b = runs.case_sets.get((before, model)), runs.case_sets.get((after, model))
    if a is None or b is None:
        return
    if not set(a.items()) & set(b.items()):
        what = "no case id" if not set(a) & set(b) else "no case with identical content"
        raise LogsError(
            f"the {before} and {after} runs with {model} have {what} in common: nothing to compare"
        )
