"""Each run's verdict figures against gold with their intervals, by group and over epochs.

Accuracy, the confusion table's figures, claims and spans; accuracy by category and by
relation; derived cases that fail; stability over epochs.
"""

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.cases import TOTALS, epoch_cells
from farejudge.comparison.stats.bootstrap import (
    Resampling,
    Statistic,
    bootstrap,
    column_ratio,
    statistic_values,
)
from farejudge.comparison.stats.intervals import Interval, percentile_interval, wilson
from farejudge.comparison.verdicts.flips import relation_of
from farejudge.scorers.confusion import Confusion, overlap_f1

# Columns of the per-case totals array (cases.TOTALS) the bootstrap statistics read.
_TP, _FN, _FP, _TN, _MATCHED, _JUDGE, _GOLD, _SPAN_OVERLAP, _SPAN_JUDGE, _SPAN_GOLD = range(10)


def _confusion(t: NDArray[np.float64]) -> Confusion:
    return Confusion(tp=t[_TP], fn=t[_FN], fp=t[_FP], tn=t[_TN])


def _balanced_accuracy(t: NDArray[np.float64]) -> float:
    return _confusion(t).balanced_accuracy


def _f1(t: NDArray[np.float64]) -> float:
    return _confusion(t).f1


def _kappa(t: NDArray[np.float64]) -> float:
    return _confusion(t).kappa


def _span_f1(t: NDArray[np.float64]) -> float:
    return overlap_f1(t[_SPAN_OVERLAP], t[_SPAN_JUDGE], t[_SPAN_GOLD])


@dataclass(frozen=True)
class RunSummary:
    version: str
    model: str
    cases: int
    case_epochs: int
    errored: int
    """Samples that errored (the provider failed, not the judge): in no figure."""
    failures: int
    """Judge failures, counted over case-epochs."""
    failure_rate: Interval
    accuracy: Interval
    balanced_accuracy: Interval
    precision: Interval
    recall: Interval
    f1: Interval
    kappa: Interval
    claim_precision: Interval
    claim_recall: Interval
    span_precision: Interval
    """By character overlap of quoted and gold spans; undefined for a log without span counts."""
    span_recall: Interval
    span_f1: Interval


@dataclass(frozen=True)
class GroupAccuracy:
    """Accuracy over one group of cases (a category, a metamorphic relation) in one run."""

    version: str
    model: str
    group: str
    cases: int
    accuracy: Interval


@dataclass(frozen=True)
class ConfusionCounts:
    """Counts over case-epochs; judge failures kept apart, by gold class."""

    version: str
    model: str
    tp: int
    fn: int
    fp: int
    tn: int
    failed_ungrounded: int
    failed_grounded: int


@dataclass(frozen=True)
class CaseStability:
    version: str
    model: str
    case: str
    category: str
    epochs: int
    verdicts: dict[str, int]
    """Verdict kind ("grounded", "ungrounded", "judge failure") → epochs."""

    @property
    def consistency(self) -> float:
        """Share of epochs giving the case's most common verdict."""
        return max(self.verdicts.values()) / self.epochs


@dataclass(frozen=True)
class StabilitySummary:
    version: str
    model: str
    cases: int
    unstable: Interval
    """Share of cases whose verdict differs between epochs."""
    consistency: Interval
    """Mean over cases of the share of epochs giving the case's most common verdict."""


@dataclass(frozen=True)
class DerivedFailure:
    """A derived case the judge got wrong on the current version, though right on its parent."""

    case: str
    relation: str
    model: str
    verdict: str


def run_totals(group: pd.DataFrame) -> NDArray[np.float64]:
    """A run's per-case totals: the rows its bootstrapped figures resample."""
    totals: NDArray[np.float64] = group[TOTALS].to_numpy(dtype=float)
    return totals


def run_summary(
    version: str, model: str, group: pd.DataFrame, errored: int, resampled: NDArray[np.float64]
) -> RunSummary:
    """`resampled`: the run totals' column totals in each bootstrap resample; one draw serves
    every bootstrapped figure of the run."""
    n = len(group)
    t = run_totals(group).sum(axis=0)

    def boot(statistic: Statistic) -> Interval:
        estimate = float(statistic(t))
        return percentile_interval(estimate, statistic_values(statistic, resampled))

    return RunSummary(
        version=version,
        model=model,
        cases=n,
        case_epochs=int(group["epochs"].sum()),
        errored=errored,
        failures=int(group["failed_epochs"].sum()),
        failure_rate=wilson(group["failure"].sum(), n),
        accuracy=wilson(group["agree"].sum(), n),
        balanced_accuracy=boot(_balanced_accuracy),
        precision=wilson(t[_TP], t[_TP] + t[_FP]),
        recall=wilson(t[_TP], t[_TP] + t[_FN]),
        f1=boot(_f1),
        kappa=boot(_kappa),
        claim_precision=boot(column_ratio(_MATCHED, _JUDGE)),
        claim_recall=boot(column_ratio(_MATCHED, _GOLD)),
        span_precision=boot(column_ratio(_SPAN_OVERLAP, _SPAN_JUDGE)),
        span_recall=boot(column_ratio(_SPAN_OVERLAP, _SPAN_GOLD)),
        span_f1=boot(_span_f1),
    )


def confusion_counts(version: str, model: str, rows: pd.DataFrame) -> ConfusionCounts:
    """`rows`: the run's samples, one per case-epoch."""
    failed = rows["failure"] > 0
    gold = rows["gold_ungrounded"] > 0
    tp, fn, fp, tn = (round(float(cell.sum())) for cell in epoch_cells(rows))
    return ConfusionCounts(
        version=version,
        model=model,
        tp=tp,
        fn=fn,
        fp=fp,
        tn=tn,
        failed_ungrounded=int((failed & gold).sum()),
        failed_grounded=int((failed & ~gold).sum()),
    )


def stability(
    cases: pd.DataFrame, resampling: Resampling
) -> tuple[list[StabilitySummary], list[CaseStability]]:
    """Per run, how often its verdicts change between epochs; and the cases that changed."""
    summaries, unstable = [], []
    for (version, model), group in cases.groupby(["version", "model"], sort=False):
        shaky = group[[len(kinds) > 1 for kinds in group["kinds"]]]
        share = group["modal_epochs"].to_numpy(dtype=float) / group["epochs"].to_numpy(dtype=float)
        # A run whose every case gave one verdict kind is consistent in every resample.
        consistency = (
            Interval(1.0, 1.0, 1.0)
            if shaky.empty and len(group)
            else bootstrap(
                np.column_stack([share, np.ones(len(share))]), column_ratio(0, 1), resampling
            )
        )
        summaries.append(
            StabilitySummary(
                version=str(version),
                model=str(model),
                cases=len(group),
                unstable=wilson(len(shaky), len(group)),
                consistency=consistency,
            )
        )
        unstable += [
            CaseStability(
                version=str(version),
                model=str(model),
                case=str(case),
                category=str(category),
                epochs=int(epochs),
                verdicts=dict(kinds),
            )
            for case, category, epochs, kinds in zip(
                shaky["case"], shaky["category"], shaky["epochs"], shaky["kinds"], strict=True
            )
        ]
    return summaries, unstable


def derived_failures(cases: pd.DataFrame, current: str) -> list[DerivedFailure]:
    """Derived cases wrong on the current version whose gold case is right there."""
    now = cases[cases["version"] == current]
    right = {
        (str(m), str(c))
        for m, c, r in zip(now["model"], now["case"], now["right"], strict=True)
        if r
    }
    return [
        DerivedFailure(case=str(c), relation=relation_of(str(c)), model=str(m), verdict=str(v))
        for m, c, r, v in zip(now["model"], now["case"], now["right"], now["verdict"], strict=True)
        if "~" in str(c) and not r and (str(m), str(c).split("~")[0]) in right
    ]


def accuracy_by(cases: pd.DataFrame, column: str) -> list[GroupAccuracy]:
    """Accuracy per run and per value of `column` (a category, a relation)."""
    return [
        GroupAccuracy(
            version=str(v),
            model=str(m),
            group=str(g),
            cases=len(group),
            accuracy=wilson(group["agree"].sum(), len(group)),
        )
        for (v, m, g), group in cases.groupby(["version", "model", column], sort=False)
    ]
