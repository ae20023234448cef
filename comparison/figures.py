"""The figures of the comparison report, computed from the tidy per-epoch frame.

A case is the unit throughout: its epochs are averaged into shares before any figure or
interval, so three epochs of one case never pass for three independent cases. A case
is "right" for a run when the judge agreed with gold in more than half its epochs; a
judge failure is never agreement, so it counts against the version that produced it.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.candidates import Deployment, DeployOptions, deployment
from farejudge.comparison.logs.frame import LogsError, Runs
from farejudge.comparison.panel.suspicion import PanelFindings, panel_findings
from farejudge.comparison.stats.graded_runs import GradedResults, graded_results
from farejudge.comparison.stats.intervals import (
    Interval,
    Statistic,
    bootstrap,
    mcnemar_detectable_change,
    mcnemar_exact,
    percentile_interval,
    resampled_totals_many,
    statistic_values,
    wilson,
)
from farejudge.scorers.confusion import Confusion, cells, overlap_f1

# Columns of the per-case totals array the bootstrap statistics read.
_TP, _FN, _FP, _TN, _MATCHED, _JUDGE, _GOLD, _SPAN_OVERLAP, _SPAN_JUDGE, _SPAN_GOLD = range(10)
_TOTALS = ["tp", "fn", "fp", "tn", "claims_matched", "claims_judge", "claims_gold"]
_TOTALS += ["span_overlap_chars", "span_judge_chars", "span_gold_chars"]


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


def _ratio(num: int, den: int) -> Statistic:
    def statistic(t: NDArray[np.float64]) -> float:
        return float(t[num] / t[den]) if t[den] > 0 else float("nan")

    return statistic


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


@dataclass(frozen=True)
class PinnedCheck:
    case: str
    fixed_by: str
    model: str
    version: str
    right: bool | None
    """None when the version's log has no score for the case."""
    in_case_sets: bool
    """Whether any compared run's case set holds the case; if none does, it is not missing."""
    verdict: str | None
    gating: bool
    """Whether the gate requires it: on the version that fixed it, and on the newest."""
    left_out: bool
    """In the run's case set, but not among the cases it was given (a `--limit`), and the
    comparison is partial: it holds the run to those cases only."""

    @property
    def holds(self) -> bool:
        return self.right is True

    @property
    def missing(self) -> bool:
        """In the case sets but not scored in this run: the comparison is incomplete."""
        return self.right is None and self.in_case_sets and not self.left_out


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


def relation_of(case: str) -> str:
    """A derived case's id is `<parent>~<relation>`; a gold case's relation is "gold"."""
    return case.split("~", 1)[1] if "~" in case else "gold"


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


@dataclass(frozen=True)
class DerivedFailure:
    """A derived case the judge got wrong on the current version, though right on its parent."""

    case: str
    relation: str
    model: str
    verdict: str


@dataclass(frozen=True)
class Report:
    runs: Runs
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
    resamples: int
    seed: int
    partial: bool
    """Whether a run given only some of its cases is held to those alone (`--partial`)."""
    deployment: Deployment
    """Which candidate (a run, a panel) to deploy under the constraints, and the frontier."""
    graded: GradedResults | None = None
    """The judge's graded score P(ungrounded): per run and between versions."""
    panel: PanelFindings = field(default_factory=PanelFindings)
    """Judge panels (majority verdicts per version) and the gold cases they doubt."""


def held_cases(runs: Runs, key: tuple[str, str], partial: bool) -> set[str]:
    """The cases a run must have judged: its case set; with `partial`, those it was given."""
    case_set = set(runs.case_sets[key])
    return case_set & runs.coverage[key].selected if partial else case_set


VERDICT_KINDS = ("grounded", "ungrounded", "judge failure")
_KIND_COLUMNS = ["_grounded", "_ungrounded", "_judge_failure"]


def _verdict_kinds(samples: pd.DataFrame) -> NDArray[np.float64]:
    """Per case-epoch, 1 in the column of its verdict kind (VERDICT_KINDS) and 0 elsewhere."""
    failed = samples["failure"].to_numpy(dtype=float) != 0
    # NaN counts as ungrounded, as a truth value would.
    ungrounded = ~failed & (samples["judge_ungrounded"].to_numpy(dtype=float) != 0)
    return np.column_stack([~failed & ~ungrounded, ungrounded, failed]).astype(float)


def _modal_verdicts(samples: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each case's most common verdict over its epochs; a tie goes to the one seen first."""
    # Unsorted groups come in order of first appearance, and a stable sort keeps that order
    # among equal counts.
    counted = samples.groupby([*keys, "verdict"], sort=False).size().rename("n").reset_index()
    counted = counted.sort_values("n", ascending=False, kind="stable")
    return counted.drop_duplicates(keys).set_index(keys)["verdict"].astype(str)


def _cells(samples: pd.DataFrame) -> tuple[NDArray[np.float64], ...]:
    """Each case-epoch's (tp, fn, fp, tn) contribution; a judge failure adds to none."""
    answered = 1 - samples["failure"].to_numpy(dtype=float)
    gold = samples["gold_ungrounded"].to_numpy(dtype=float)
    judged = samples["judge_ungrounded"].fillna(0).to_numpy(dtype=float)
    return cells(answered, gold, judged)


def per_case(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per version, model and case: epoch shares, totals and the modal verdict."""
    keys = ["version", "model", "case"]
    tp, fn, fp, tn = _cells(samples)
    kinds = _verdict_kinds(samples)
    rows = samples.assign(
        tp=tp, fn=fn, fp=fp, tn=tn, **dict(zip(_KIND_COLUMNS, kinds.T, strict=True))
    )
    grouped = rows.groupby(keys, sort=False)
    cases = grouped[["agree", "failure", "gold_ungrounded", *_TOTALS]].mean()
    # The mean over the epochs that have one: a case's graded score is NaN only where none has.
    cases["p_ungrounded"] = grouped["p_ungrounded"].mean()
    cases["graded_source"] = grouped["graded_source"].first()
    cases["case_hash"] = grouped["case_hash"].first()
    cases["category"] = grouped["category"].first()
    cases["relation"] = grouped["relation"].first()
    cases["epochs"] = grouped.size()
    cases["failed_epochs"] = grouped["failure"].sum()
    cases["verdict"] = _modal_verdicts(samples, keys).reindex(cases.index)
    counts = grouped[_KIND_COLUMNS].sum().to_numpy(dtype=int)
    cases["kinds"] = [
        {kind: int(n) for kind, n in zip(VERDICT_KINDS, row, strict=True) if n} for row in counts
    ]
    # Epochs giving the case's most common verdict kind: its consistency's numerator.
    cases["modal_epochs"] = counts.max(axis=1)
    cases["right"] = cases["agree"] > 0.5
    return cases.reset_index()


def _run_totals(group: pd.DataFrame) -> NDArray[np.float64]:
    """A run's per-case totals: the rows its bootstrapped figures resample."""
    totals: NDArray[np.float64] = group[_TOTALS].to_numpy(dtype=float)
    return totals


def _summary(
    version: str, model: str, group: pd.DataFrame, errored: int, resampled: NDArray[np.float64]
) -> RunSummary:
    """`resampled`: the run totals' column totals in each bootstrap resample; one draw serves
    every bootstrapped figure of the run."""
    n = len(group)
    t = _run_totals(group).sum(axis=0)

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
        claim_precision=boot(_ratio(_MATCHED, _JUDGE)),
        claim_recall=boot(_ratio(_MATCHED, _GOLD)),
        span_precision=boot(_ratio(_SPAN_OVERLAP, _SPAN_JUDGE)),
        span_recall=boot(_ratio(_SPAN_OVERLAP, _SPAN_GOLD)),
        span_f1=boot(_span_f1),
    )


def _confusion_counts(version: str, model: str, rows: pd.DataFrame) -> ConfusionCounts:
    failed = rows["failure"] > 0
    gold = rows["gold_ungrounded"] > 0
    tp, fn, fp, tn = (round(float(cell.sum())) for cell in _cells(rows))
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


def _paired(model: str, before: str, after: str, cases: pd.DataFrame) -> pd.DataFrame:
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


def _gains(both: pd.DataFrame) -> NDArray[np.float64]:
    """Per shared case, its accuracy gain and a one: the rows the accuracy change resamples."""
    pair = both[both["same"]]
    gain = pair["agree_b"].to_numpy(float) - pair["agree_a"].to_numpy(float)
    return np.column_stack([gain, np.ones(len(pair))])


def _transition(
    model: str, before: str, after: str, both: pd.DataFrame, resampled: NDArray[np.float64]
) -> Transition:
    """`both`: the runs' cases side by side (`_paired`); `resampled`: the column totals of
    their `_gains` in each bootstrap resample."""
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
    change = _ratio(0, 1)
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
            change(_gains(both).sum(axis=0)), statistic_values(change, resampled)
        ),
    )


def _pinned(runs: Runs, cases: pd.DataFrame, partial: bool) -> list[PinnedCheck]:
    indexed = cases.set_index(["version", "model", "case"])
    in_case_sets = {case for case_set in runs.case_sets.values() for case in case_set}
    held = {key: held_cases(runs, key, partial) for key in runs.case_sets}
    newest = runs.current
    # Manifest order; a version the manifest does not know is taken to come after them all.
    rank = {v: i for i, v in enumerate(runs.pinned)}
    checks = []
    for fixed_by, pinned_cases in runs.pinned.items():
        onward = [v for v in runs.versions if rank.get(v, len(rank)) >= rank[fixed_by]]
        for case in pinned_cases:
            for model in runs.models:
                for version in onward:
                    key = (version, model, case)
                    found = key in indexed.index
                    checks.append(
                        PinnedCheck(
                            case=case,
                            fixed_by=fixed_by,
                            model=model,
                            version=version,
                            right=bool(indexed.at[key, "right"]) if found else None,
                            in_case_sets=case in in_case_sets,
                            verdict=str(indexed.at[key, "verdict"]) if found else None,
                            gating=version in (fixed_by, newest),
                            left_out=case in runs.case_sets.get((version, model), {})
                            and case not in held[(version, model)],
                        )
                    )
    return checks


def _stability(
    cases: pd.DataFrame, resamples: int, seed: int
) -> tuple[list[StabilitySummary], list[CaseStability]]:
    summaries, unstable = [], []
    for (version, model), group in cases.groupby(["version", "model"], sort=False):
        shaky = group[[len(kinds) > 1 for kinds in group["kinds"]]]
        share = group["modal_epochs"].to_numpy(dtype=float) / group["epochs"].to_numpy(dtype=float)
        # A run whose every case gave one verdict kind is consistent in every resample.
        consistency = (
            Interval(1.0, 1.0, 1.0)
            if shaky.empty and len(group)
            else bootstrap(
                np.column_stack([share, np.ones(len(share))]), _ratio(0, 1), resamples, seed
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


def _require_common_cases(runs: Runs, model: str, before: str, after: str) -> None:
    """Two runs to compare must hold at least one identical case, or the pairing is empty."""
    a, b = runs.case_sets.get((before, model)), runs.case_sets.get((after, model))
    if a is None or b is None:
        return
    if not set(a.items()) & set(b.items()):
        what = "no case id" if not set(a) & set(b) else "no case with identical content"
        raise LogsError(
            f"the {before} and {after} runs with {model} have {what} in common: nothing to compare"
        )


def _derived_failures(cases: pd.DataFrame, current: str) -> list[DerivedFailure]:
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


def _accuracy_by(cases: pd.DataFrame, column: str) -> list[GroupAccuracy]:
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


def build_report(
    runs: Runs,
    resamples: int = 2000,
    seed: int = 0,
    partial: bool = False,
    target_recall: float = 0.9,
    panel: Sequence[str] | None = None,
    deploy: DeployOptions | None = None,
) -> Report:
    cases = per_case(runs.samples)
    order = {v: i for i, v in enumerate(runs.versions)}
    cases = cases.sort_values(
        ["version", "model", "case"], key=lambda s: s.map(order) if s.name == "version" else s
    ).reset_index(drop=True)
    runs_grouped = list(cases.groupby(["version", "model"], sort=False))
    errored = {(str(r.version), str(r.model)): int(r.errored) for r in runs.logs.itertuples()}
    present = set(zip(cases["version"], cases["model"], strict=True))
    for model in runs.models:
        for before, after in zip(runs.versions, runs.versions[1:], strict=False):
            _require_common_cases(runs, model, before, after)
    pairs = [
        (model, before, after, _paired(model, before, after, cases))
        for model in runs.models
        for before, after in zip(runs.versions, runs.versions[1:], strict=False)
        if (before, model) in present and (after, model) in present
    ]
    # One pass of bootstrap draws for all runs and pairs of the same size (usually all).
    resampled = resampled_totals_many(
        [*(_run_totals(group) for _, group in runs_grouped), *(_gains(p[3]) for p in pairs)],
        resamples,
        seed,
    )
    summaries = [
        _summary(str(v), str(m), group, errored[(str(v), str(m))], drawn)
        for ((v, m), group), drawn in zip(runs_grouped, resampled, strict=False)
    ]
    categories = _accuracy_by(cases, "category")
    relations = _accuracy_by(cases, "relation")
    confusions = [
        _confusion_counts(str(v), str(m), rows)
        for (v, m), rows in runs.samples.groupby(["version", "model"], sort=False)
    ]
    confusions.sort(key=lambda c: (order[c.version], c.model))
    transitions = [
        _transition(model, before, after, both, drawn)
        for (model, before, after, both), drawn in zip(
            pairs, resampled[len(runs_grouped) :], strict=True
        )
    ]
    stability, unstable = _stability(cases, resamples, seed)
    graded = graded_results(cases, runs.versions, runs.models, resamples, seed, target_recall)
    panels = panel_findings(runs, cases, panel, resamples, seed)
    return Report(
        runs=runs,
        summaries=summaries,
        categories=categories,
        relations=relations,
        derived_failures=_derived_failures(cases, runs.current),
        confusions=confusions,
        transitions=transitions,
        pinned=_pinned(runs, cases, partial),
        stability=stability,
        unstable_cases=unstable,
        # No case at all where every sample of every run errored.
        max_epochs=int(cases["epochs"].max()) if len(cases) else 0,
        resamples=resamples,
        seed=seed,
        partial=partial,
        graded=graded,
        panel=panels,
        deployment=deployment(
            runs,
            cases,
            graded,
            panels.panels,
            deploy or DeployOptions(),
            resamples,
            seed,
            target_recall,
        ),
    )
