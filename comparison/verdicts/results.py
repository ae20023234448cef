"""The verdict comparison's results from the per-case frame, with one bootstrap pass for all."""

from dataclasses import dataclass

import pandas as pd

from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.stats.bootstrap import Resampling, resampled_totals_many
from farejudge.comparison.verdicts.figures import (
    CaseStability,
    ConfusionCounts,
    DerivedFailure,
    GroupAccuracy,
    RunSummary,
    StabilitySummary,
    accuracy_by,
    confusion_counts,
    derived_failures,
    run_summary,
    run_totals,
    stability,
)
from farejudge.comparison.verdicts.flips import (
    Transition,
    gains,
    paired,
    require_common_cases,
    transition,
)
from farejudge.comparison.verdicts.pinned import PinnedCheck, pinned_checks


@dataclass(frozen=True)
class VerdictResults:
    summaries: list[RunSummary]
    categories: list[GroupAccuracy]
    relations: list[GroupAccuracy]
    """Per metamorphic relation; only the unedited cases ("gold") outside that suite."""
    derived_failures: list[DerivedFailure]
    """CheckList's failures on the current version: the parent right, the derived case wrong."""
    confusions: list[ConfusionCounts]
    transitions: list[Transition]
    pinned: list[PinnedCheck]
    stability: list[StabilitySummary]
    unstable_cases: list[CaseStability]
    max_epochs: int
    partial: bool
    """Whether a run given only some of its cases is held to those alone (`--partial`)."""


def verdict_results(
    runs: Runs, cases: pd.DataFrame, resampling: Resampling, partial: bool
) -> VerdictResults:
    """`cases`: the per-case frame in report order (`cases.report_order`)."""
    order = {v: i for i, v in enumerate(runs.versions)}
    runs_grouped = list(cases.groupby(["version", "model"], sort=False))
    errored = {(str(r.version), str(r.model)): int(r.errored) for r in runs.logs.itertuples()}
    present = set(zip(cases["version"], cases["model"], strict=True))
    for model in runs.models:
        for before, after in zip(runs.versions, runs.versions[1:], strict=False):
            require_common_cases(runs, model, before, after)
    pairs = [
        (model, before, after, paired(model, before, after, cases))
        for model in runs.models
        for before, after in zip(runs.versions, runs.versions[1:], strict=False)
        if (before, model) in present and (after, model) in present
    ]
    # One pass of bootstrap draws for all runs and pairs of the same size (usually all).
    resampled = resampled_totals_many(
        [*(run_totals(group) for _, group in runs_grouped), *(gains(p[3]) for p in pairs)],
        resampling,
    )
    summaries = [
        run_summary(str(v), str(m), group, errored[(str(v), str(m))], drawn)
        for ((v, m), group), drawn in zip(runs_grouped, resampled, strict=False)
    ]
    confusions = [
        confusion_counts(str(v), str(m), rows)
        for (v, m), rows in runs.samples.groupby(["version", "model"], sort=False)
    ]
    confusions.sort(key=lambda c: (order[c.version], c.model))
    transitions = [
        transition(model, before, after, both, drawn)
        for (model, before, after, both), drawn in zip(
            pairs, resampled[len(runs_grouped) :], strict=True
        )
    ]
    stable, unstable = stability(cases, resampling)
    return VerdictResults(
        summaries=summaries,
        categories=accuracy_by(cases, "category"),
        relations=accuracy_by(cases, "relation"),
        derived_failures=derived_failures(cases, runs.current),
        confusions=confusions,
        transitions=transitions,
        pinned=pinned_checks(runs, cases, partial),
        stability=stable,
        unstable_cases=unstable,
        # No case at all where every sample of every run errored.
        max_epochs=int(cases["epochs"].max()) if len(cases) else 0,
        partial=partial,
    )
