"""Builds the deploy decision: each candidate's rows, figures and frontier share, and the pick.

A candidate is each version and model's run, and each judge panel. Its operating point is
the cut-off on its graded score that reaches `--target-recall` where the score comes from
logprobs (one call gives it), and its verdict otherwise: a score from epochs needs several
calls per answer, and a panel is its majority verdict. A case without a graded score is at
its verdict. Its cost is the recorded cost of its calls (a panel's, the sum over its
members); its latency each call's working time (a panel's, its slowest member's on each
case and epoch).

With selective judging (judge-compare --alpha or --min-agreement), each graded candidate alone
and each cascade whose judges decide some answers alone is a candidate too
(`comparison/escalation/`): a judge's verdict where it decides, a person's (gold's, by
definition) where it escalates. Its cost per answer is each judge's on the answers that reach
it and a person's review of the rest; its latency an answer's time through the judges it
reaches (each one's slowest call there).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from farejudge.comparison.attacks.results import AttackResults, RunAttacks
from farejudge.comparison.deploy.frontier import CandidateRows, resample_candidates
from farejudge.comparison.deploy.pick import (
    ALT_TESTED,
    ATTACKED,
    GUARANTEED,
    Constraints,
    PickTest,
    Screened,
    most_excluding,
    pick_test,
    prefer,
    ranking,
    screen,
)
from farejudge.comparison.escalation.binomial import upper_bounds
from farejudge.comparison.escalation.results import EscalationResults, Selective
from farejudge.comparison.graded.results import GradedResults, GradedSummary
from farejudge.comparison.humans.results import HumanFigures, HumanResults
from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.panel.majority import FAILURE, Panel
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import Interval
from farejudge.core.decision_file import Preference, Quality
from farejudge.raters import EffectiveJudges
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
    selective: Selective | None = None
    """Where it is a graded candidate alone or a cascade, then a person: its calibration."""
    guaranteed_agreement: float | None = None
    """With selective judging: the agreement with gold it guarantees at delta on what its
    judges decide alone (NaN: none); None without selective judging."""
    attacks: RunAttacks | None = None
    """A run of the adversarial suite's attack success per family; None for any other."""
    humans: HumanFigures | None = None
    """Its figures against the annotators, on cases that carry several; None elsewhere."""
    effective_judges: EffectiveJudges | None = None
    """For a panel: its members' effective number of judges; None for any other."""

    @property
    def name(self) -> str:
        return self.selective.name if self.selective else f"{self.version} with {self.model}"

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
    escalation: EscalationResults | None = None
    """Selective judging's results, where judge-compare was asked for them."""
    humans: HumanResults | None = None
    """The annotators' figures, on cases that carry several annotators."""
    suite_cases: int = 0
    """A suite's derived and attacked cases, left out of the candidates' figures: they stand
    on the gold cases as written."""

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


def _selective_rows(
    s: Selective, position: dict[str, int], human_cost: float
) -> tuple[CandidateRows, _Verdicts]:
    """A person's label is gold's: an escalated answer is right, at a review's cost."""
    n = len(s.cases)
    gold = s.judges[0].gold[s.index[0]]
    judged = gold.copy()
    calls, failed, cost, latency = (np.zeros(n) for _ in range(4))
    for j, (judge, at) in enumerate(zip(s.judges, s.index, strict=True)):
        decided, verdict = s.stage(j)
        judged[decided] = verdict[decided]
        reached = (s.route < 0) | (s.route >= j)
        calls += np.where(reached, judge.calls[at], 0.0)
        failed += np.where(reached, judge.calls[at] * judge.failure[at], 0.0)
        cost += np.where(reached, judge.cost_per_answer, 0.0)
        latency += np.where(reached, judge.latency[at], 0.0)
    cost += np.where(s.route < 0, human_cost, 0.0)
    rows = CandidateRows(
        cases=np.array([position[c] for c in s.cases], dtype=np.int64),
        cells=np.column_stack(cells(np.ones(n), gold, judged)),
        failure=failed / calls,
        cost=cost,
        flip=np.full(n, np.nan),
        call_rows=np.arange(n, dtype=np.int64),
        latency=latency,
    )
    verdicts = _Verdicts(
        case_hash=pd.Series(s.judges[0].case_hash[s.index[0]], index=s.cases),
        right=pd.Series(judged == gold, index=s.cases),
        gold=pd.Series(gold, index=s.cases),
        score=None,
        cut_off=False,
    )
    return rows, verdicts


def _guaranteed(rows: CandidateRows, alpha: float, delta: float) -> float:
    """The agreement with gold a judge deciding every answer alone guarantees at delta: one
    minus the exact (Clopper-Pearson) upper bound on its error rate, a judge failure an
    error; NaN where none (every case wrong)."""
    right = (rows.cells[:, 0] + rows.cells[:, 3]) > 0.5
    bound = float(upper_bounds(int((~right).sum()), len(right), delta))
    return 1 - bound if bound < 1 else math.nan


@dataclass(frozen=True)
class _Named:
    version: str
    model: str
    members: tuple[str, ...]
    threshold: float | None
    rows: CandidateRows
    verdicts: _Verdicts
    selective: Selective | None = None


def _candidates(
    runs: Runs,
    cases: pd.DataFrame,
    graded: GradedResults,
    panels: Sequence[Panel],
    escalation: EscalationResults | None,
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
    if escalation is not None:
        human = escalation.options.human_cost_per_review
        for s in escalation.selective:
            # One whose judges decide nothing alone sends every answer to a person: no judge.
            if s.decided:
                rows, verdicts = _selective_rows(s, position, math.nan if human is None else human)
                found.append(_Named(s.version, s.model, (), None, rows, verdicts, s))
    return found, len(position)


def deployment(
    runs: Runs,
    cases: pd.DataFrame,
    graded: GradedResults,
    panels: Sequence[Panel],
    options: DeployOptions,
    resampling: Resampling,
    target_recall: float,
    escalation: EscalationResults | None = None,
    attacks: AttackResults | None = None,
    humans: HumanResults | None = None,
) -> Deployment:
    """`cases`: the per-case frame in report order (`cases.report_order`); `escalation`:
    selective judging's results, where asked for (its candidates join the others); `attacks`:
    each adversarial run's attack success, which `--max-attack-success` bounds."""
    named, total = _candidates(runs, cases, graded, panels, escalation)
    resampled = resample_candidates([n.rows for n in named], total, options.quality, resampling)
    guaranteed: list[float | None] = [None] * len(named)
    points = resampled.point
    if escalation is not None:
        alpha, delta = escalation.options.alpha, escalation.options.delta
        found = [
            _guaranteed(n.rows, alpha, delta)
            if n.selective is None
            # Rounded as the alpha of --min-agreement is: 1 - (1 - 0.93) is 0.9299999999999999.
            else (round(1 - alpha, 12) if n.selective.decided else math.nan)
            for n in named
        ]
        points = [p | {GUARANTEED: g} for p, g in zip(points, found, strict=True)]
        guaranteed = list(found)
    # Only a run holds attacked cases: a panel's or a cascade's attack success is unknown.
    attacked = [
        attacks.of(n.version, n.model) if attacks and not n.members and not n.selective else None
        for n in named
    ]
    points = [
        p | {ATTACKED: math.nan if a is None else a.worst}
        for p, a in zip(points, attacked, strict=True)
    ]
    # Only a run or a panel is tested against the annotators: a cascade's test is unknown.
    tested = {(f.version, f.model): f for f in humans.candidates} if humans else {}
    against = [None if n.selective else tested.get((n.version, n.model)) for n in named]
    points = [
        p | {ALT_TESTED: math.nan if h is None else float(h.can_replace)}
        for p, h in zip(points, against, strict=True)
    ]
    worth = {(p.version, f"panel ({', '.join(p.members)})"): p.effective for p in panels}
    screened = [screen(point, options.constraints) for point in points]
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
            selective=n.selective,
            guaranteed_agreement=guaranteed[i],
            attacks=attacked[i],
            humans=against[i],
            effective_judges=None if n.selective else worth.get((n.version, n.model)),
        )
        for i, n in enumerate(named)
    ]
    cheapest_first = options.constraints.min_agreement is not None
    ranked = ranking(points, [s.meets for s in screened], options.quality, cheapest_first)
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
        escalation=escalation,
        humans=humans,
    )
