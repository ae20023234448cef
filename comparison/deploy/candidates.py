"""Builds the deploy decision: each candidate's rows, figures and frontier share, and the pick.

A candidate is each version and model's run, and each judge panel. Its operating point is
the cut-off on its graded score that reaches `--target-recall` where the score comes from
logprobs (one call gives it), and its verdict otherwise: a score from epochs needs several
calls per answer, and a panel is its majority verdict. A case without a graded score is at
its verdict. Its cost is the recorded cost of its calls (a panel's, the sum over its
members); its latency each call's working time (a panel's, its slowest member's on each
case and epoch).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from farejudge.comparison.deploy.frontier import CandidateRows, Quality, resample_candidates
from farejudge.comparison.deploy.pick import (
    Constraints,
    PickTest,
    Preference,
    Screened,
    most_excluding,
    pick_test,
    prefer,
    ranking,
    screen,
)
from farejudge.comparison.graded.results import GradedResults, GradedSummary
from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.panel.majority import FAILURE, Panel
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import Interval
from farejudge.scorers.confusion import cells

LOGPROBS = "logprobs"


@dataclass(frozen=True)
class DeployOptions:
    """What the deployment is chosen on: `judge-compare --quality` and the constraints."""

    quality: Quality = "balanced_accuracy"
    constraints: Constraints = field(default_factory=Constraints)


@dataclass(frozen=True)
class Candidate:
    version: str
    model: str
    """The judge model, or for a panel `panel (a, b, c)`."""
    members: tuple[str, ...]
    """A panel's judge models; empty for one judge."""
    cases: int
    calls: int
    """Calls timed and priced: the case-epochs (a panel's, each member's)."""
    threshold: float | None
    """The cut-off on P(ungrounded) it flags at; None where it flags by its verdict."""
    figures: dict[str, Interval]
    """Each of its figures (`frontier.resample_candidates`), with its 95 % interval."""
    on_frontier: bool
    frontier_share: float
    """Share of the resamples in which it is on the cost-quality frontier."""
    screened: Screened

    @property
    def name(self) -> str:
        return f"{self.version} with {self.model}"

    def estimate(self, figure: str) -> float:
        return self.figures[figure].estimate


@dataclass(frozen=True)
class Deployment:
    quality: Quality
    constraints: Constraints
    target_recall: float
    candidates: list[Candidate]
    ranked: list[int]
    """The candidates that meet every constraint, best first."""
    test: PickTest | None
    """The pick against the runner-up; None without a runner-up."""
    prefer_runner_up: bool
    preference: Preference | None
    """Why the preferred one is preferred; None without a runner-up."""
    excluded_most: list[str]
    """With no pick: the constraints that excluded the most candidates."""
    excluded_count: int
    usable: int
    """Resamples with every candidate's quality defined: the frontier shares are over these."""
    resampling: Resampling

    @property
    def pick(self) -> Candidate | None:
        return self.candidates[self.ranked[0]] if self.ranked else None

    @property
    def runner_up(self) -> Candidate | None:
        return self.candidates[self.ranked[1]] if len(self.ranked) > 1 else None

    @property
    def preferred(self) -> Candidate | None:
        return self.runner_up if self.prefer_runner_up else self.pick


@dataclass(frozen=True)
class _Verdicts:
    """A candidate's per-case verdicts for the pick's test, indexed by case id."""

    case_hash: pd.Series
    right: pd.Series
    gold: pd.Series
    score: pd.Series | None
    """P(ungrounded), where the candidate has graded scores; None where it has not."""
    cut_off: bool
    """Whether it flags by a cut-off on that score."""


def _graded(summary: GradedSummary | None) -> bool:
    """Whether the run has graded scores that are more than its verdict (logprobs, or the
    share of several epochs): the ones DeLong can compare."""
    return bool(summary and summary.figures and not summary.verdict_only)


def _cut_off(summary: GradedSummary | None) -> float | None:
    """The run's cut-off on its graded score, where every graded case's is from logprobs."""
    if summary is None or summary.figures is None or set(summary.sources) != {LOGPROBS}:
        return None
    threshold = summary.figures.target_recall.threshold
    return None if math.isnan(threshold) else threshold


def _per_case_cost(samples: pd.DataFrame) -> pd.Series:
    """Mean cost of a call per case; NaN where any of the case's calls has no cost."""
    grouped = samples.groupby("case", sort=False)["cost"]
    cost = grouped.mean()
    return cost.where(grouped.count() == grouped.size())


def _run_rows(
    group: pd.DataFrame, samples: pd.DataFrame, position: dict[str, int], threshold: float | None
) -> CandidateRows:
    """`group`: the run's rows of the per-case frame; `samples`: its rows of the samples."""
    table = group[["tp", "fn", "fp", "tn"]].to_numpy(dtype=float)
    if threshold is not None:
        score = group["p_ungrounded"].to_numpy(dtype=float)
        has = ~np.isnan(score)
        flagged = (np.nan_to_num(score) >= threshold).astype(float)
        gold = group["gold_ungrounded"].to_numpy(dtype=float)
        table[has] = np.column_stack(cells(np.ones(len(gold)), gold, flagged))[has]
    row_of = {case: i for i, case in enumerate(group["case"])}
    epochs = group["epochs"].to_numpy(dtype=int)
    changed = np.array([len(kinds) > 1 for kinds in group["kinds"]], dtype=float)
    return CandidateRows(
        cases=np.array([position[c] for c in group["case"]], dtype=np.int64),
        cells=table,
        failure=group["failure"].to_numpy(dtype=float),
        cost=_per_case_cost(samples).reindex(group["case"]).to_numpy(dtype=float),
        flip=np.where(epochs > 1, changed, np.nan),
        call_rows=np.array([row_of[c] for c in samples["case"]], dtype=np.int64),
        latency=samples["working_time"].to_numpy(dtype=float),
    )


def _panel_rows(
    panel: Panel, samples: pd.DataFrame, position: dict[str, int]
) -> tuple[CandidateRows, _Verdicts]:
    """`samples`: the samples of the panel's version, every model."""
    ids = [c.case for c in panel.cases]
    gold = np.array([c.gold == "ungrounded" for c in panel.cases], dtype=float)
    answered = np.array([c.verdict != FAILURE for c in panel.cases], dtype=float)
    judged = np.array([c.verdict == "ungrounded" for c in panel.cases], dtype=float)
    mine = samples[samples["model"].isin(panel.members) & samples["case"].isin(ids)]
    # Each member's mean cost per call on the case: one call to each per answer.
    per_member = [
        _per_case_cost(mine[mine["model"] == m]).reindex(ids).to_numpy(dtype=float)
        for m in panel.members
    ]
    # The members are asked together: the panel's call takes as long as its slowest.
    calls = mine.groupby(["case", "epoch"], sort=False)["working_time"]
    latency = calls.max().where(calls.count() == calls.size())
    row_of = {case: i for i, case in enumerate(ids)}
    rows = CandidateRows(
        cases=np.array([position[c] for c in ids], dtype=np.int64),
        cells=np.column_stack(cells(answered, gold, judged)),
        failure=1 - answered,
        cost=np.sum(per_member, axis=0),
        flip=np.full(len(ids), np.nan),
        call_rows=np.array([row_of[c] for c, _ in latency.index], dtype=np.int64),
        latency=latency.to_numpy(dtype=float),
    )
    verdicts = _Verdicts(
        case_hash=pd.Series([c.case_hash for c in panel.cases], index=ids),
        right=pd.Series([c.right for c in panel.cases], index=ids),
        gold=pd.Series(gold, index=ids),
        score=None,
        cut_off=False,
    )
    return rows, verdicts


def _run_verdicts(group: pd.DataFrame, graded: bool, threshold: float | None) -> _Verdicts:
    indexed = group.set_index("case")
    return _Verdicts(
        case_hash=indexed["case_hash"],
        right=indexed["right"].astype(bool),
        gold=indexed["gold_ungrounded"].astype(float),
        score=indexed["p_ungrounded"].astype(float) if graded else None,
        cut_off=threshold is not None,
    )


def _test(pick: _Verdicts, runner_up: _Verdicts) -> PickTest:
    """On the cases both judged with identical content; DeLong where both have graded
    scores, over those of them with a score in both."""
    shared = pick.case_hash.index.intersection(runner_up.case_hash.index, sort=False)
    same = shared[(pick.case_hash[shared] == runner_up.case_hash[shared]).to_numpy(dtype=bool)]
    graded = None
    if pick.score is not None and runner_up.score is not None:
        a, b = pick.score[same], runner_up.score[same]
        both = same[(a.notna() & b.notna()).to_numpy(dtype=bool)]
        graded = (
            pick.gold[both].to_numpy(dtype=float),
            pick.score[both].to_numpy(dtype=float),
            runner_up.score[both].to_numpy(dtype=float),
        )
    return pick_test(
        pick.right[same].to_numpy(dtype=bool),
        runner_up.right[same].to_numpy(dtype=bool),
        graded,
        cut_off=pick.cut_off and runner_up.cut_off,
    )


@dataclass(frozen=True)
class _Named:
    version: str
    model: str
    members: tuple[str, ...]
    threshold: float | None
    rows: CandidateRows
    verdicts: _Verdicts


def _candidates(
    runs: Runs, cases: pd.DataFrame, graded: GradedResults, panels: Sequence[Panel]
) -> tuple[list[_Named], int]:
    """Every candidate's rows, and how many cases there are over all of them."""
    position = {case: i for i, case in enumerate(sorted(set(cases["case"].astype(str))))}
    summaries = {(s.version, s.model): s for s in graded.summaries}
    samples = dict(tuple(runs.samples.groupby(["version", "model"], sort=False)))
    found = []
    for (version, model), group in cases.groupby(["version", "model"], sort=False):
        key = (str(version), str(model))
        threshold = _cut_off(summaries.get(key))
        found.append(
            _Named(
                *key,
                (),
                threshold,
                _run_rows(group, samples[(version, model)], position, threshold),
                _run_verdicts(group, _graded(summaries.get(key)), threshold),
            )
        )
    for panel in panels:
        if panel.cases:
            version = runs.samples[runs.samples["version"] == panel.version]
            rows, verdicts = _panel_rows(panel, version, position)
            model = f"panel ({', '.join(panel.members)})"
            found.append(_Named(panel.version, model, tuple(panel.members), None, rows, verdicts))
    return found, len(position)


def deployment(
    runs: Runs,
    cases: pd.DataFrame,
    graded: GradedResults,
    panels: Sequence[Panel],
    options: DeployOptions,
    resampling: Resampling,
    target_recall: float,
) -> Deployment:
    """`cases`: the per-case frame in report order (`cases.report_order`)."""
    named, total = _candidates(runs, cases, graded, panels)
    resampled = resample_candidates([n.rows for n in named], total, options.quality, resampling)
    screened = [screen(point, options.constraints) for point in resampled.point]
    candidates = [
        Candidate(
            version=n.version,
            model=n.model,
            members=n.members,
            cases=len(n.rows.cases),
            calls=len(n.rows.latency),
            threshold=n.threshold,
            figures=resampled.intervals[i],
            on_frontier=resampled.on_frontier[i],
            frontier_share=resampled.frontier_share[i],
            screened=screened[i],
        )
        for i, n in enumerate(named)
    ]
    ranked = ranking(resampled.point, [s.meets for s in screened], options.quality)
    test, prefer_runner_up, preference = None, False, None
    if len(ranked) > 1:
        first, second = ranked[:2]
        test = _test(named[first].verdicts, named[second].verdicts)
        prefer_runner_up, preference = prefer(resampled.point[first], resampled.point[second], test)
    excluded, count = most_excluding(screened) if not ranked else ([], 0)
    return Deployment(
        quality=options.quality,
        constraints=options.constraints,
        target_recall=target_recall,
        candidates=candidates,
        ranked=ranked,
        test=test,
        prefer_runner_up=prefer_runner_up,
        preference=preference,
        excluded_most=excluded,
        excluded_count=count,
        usable=resampled.usable,
        resampling=resampling,
    )
