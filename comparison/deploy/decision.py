"""decision.json: its schema, and the deploy decision written for CI beside cases.jsonl.

Its schema is `Decision.model_json_schema()`. An undefined figure (no cost recorded, no
ungrounded case to measure recall on) is null, never NaN, so any JSON reader takes it.

Selective judging's keys (`escalation`, each candidate's `stages`, `guaranteed_agreement` and
`selective`, the constraints' `min_agreement` and `delta`) are written only where judge-compare
was asked for it: without it decision.json is what it was before them, key for key.
"""

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.frontier import Quality
from farejudge.comparison.deploy.pick import ALPHA, PickTest, Preference
from farejudge.comparison.deploy.sections import FLAGS, LATENCY_MEASURED, verdict_lines
from farejudge.comparison.escalation.binomial import Proportion
from farejudge.comparison.escalation.results import EscalationResults, Selective
from farejudge.comparison.escalation.threshold import GRID
from farejudge.comparison.stats.intervals import Interval

DECISION_FILE = "decision.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _number(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


class Figure(_Strict):
    """A figure and its 95 % interval; null where undefined."""

    estimate: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, i: Interval) -> "Figure":
        return cls(estimate=_number(i.estimate), low=_number(i.low), high=_number(i.high))

    @classmethod
    def share(cls, p: Proportion) -> "Figure":
        """A share with its exact (Clopper-Pearson) 95 % interval."""
        return cls(estimate=_number(p.estimate), low=_number(p.low), high=_number(p.high))


class TestedThreshold(_Strict):
    """One threshold's exact binomial test, strictest first."""

    threshold: float
    decided: int
    errors: int
    p_value: float
    rejected: bool


class StageFigures(_Strict):
    """One judge of a selective candidate, calibrated on the gold cases that reached it."""

    version: str
    model: str
    confidence_from: str
    threshold: float | None
    """Null: no threshold met alpha at its delta, and it decides nothing alone."""
    delta: float
    """Its share of the candidate's delta."""
    reached: int
    """Gold cases no earlier judge decided."""
    decided: int
    errors: int
    """Of those it decided, where it disagreed with gold."""
    share: float
    """Of all the gold cases, the share it decided."""
    cost_per_answer: float | None
    best_alpha: float | None
    """The smallest alpha it finds a threshold at, on the cases that reached it."""
    cases_needed: int | None
    """With no threshold: the gold cases alpha would take at the record it has where its
    testing opened; null where it has a threshold or no number would do."""
    tests: list[TestedThreshold]


class SelectiveFigures(_Strict):
    """Graded candidates in order, then a person: what each decides and what it costs."""

    name: str
    alpha: float
    delta: float
    cases: int
    guaranteed_agreement: float | None
    """1 - alpha, with probability at least 1 - delta, on what its judges decide alone; null
    where they decide nothing."""
    coverage: Figure
    """The share of answers its judges decide alone, with its exact 95 % interval."""
    person_share: float
    agreement: float | None
    """Observed on the gold cases its judges decided."""
    errors: int
    cost_per_1k: float | None
    """Its judges' calls on the answers that reach them and a person's reviews; null where a
    cost (a call's, a review's) is unknown."""
    reviews_per_1k: float
    stages: list[StageFigures]


class StageThreshold(_Strict):
    """A judge of a selective candidate, and the confidence it decides alone at."""

    version: str
    model: str
    threshold: float | None
    """Decide alone at a verdict's confidence at or above it; null: decides nothing alone."""


class CandidateName(_Strict):
    version: str
    model: str
    """The judge model, or for a panel `panel (a, b, c)`; for a selective candidate its judges'
    and `a person`, joined by arrows."""
    stages: list[StageThreshold] | None = None
    """With selective judging: a selective candidate's judges in order, each with its threshold
    (what `-T decision=` reads); null for a candidate deciding every answer alone."""


class CandidateFigures(CandidateName):
    members: list[str]
    """A panel's judge models; empty for one judge."""
    cases: int
    calls: int
    operating_point: Literal["verdict", "cut-off", "confidence threshold"]
    """Its verdict; a cut-off on P(ungrounded); or, for a selective candidate, its judges'
    confidence thresholds (`stages`)."""
    threshold: float | None
    """The cut-off on P(ungrounded) at the operating point; null at the verdict."""
    balanced_accuracy: Figure
    recall: Figure
    precision: Figure
    failure_rate: Figure
    cost_per_1k: Figure
    """Dollars per 1,000 answers; null where the logs record no cost."""
    latency_p50: Figure
    """Seconds per judge call (the sample's working time)."""
    latency_p95: Figure
    flip_rate: Figure
    on_frontier: bool
    frontier_share: float | None
    meets_constraints: bool
    failed_constraints: list[str]
    """The flags of the constraints it does not meet."""
    unchecked_constraints: list[str]
    """The flags of the constraints whose figure is unknown for it: they exclude nothing."""
    guaranteed_agreement: float | None = None
    """With selective judging: the agreement with gold it guarantees at delta on the answers
    its judges decide alone; null where none."""
    selective: SelectiveFigures | None = None
    """With selective judging: null for a candidate deciding every answer alone."""


class Constraints(_Strict):
    max_cost_per_1k: float | None
    min_recall: float | None
    max_failure_rate: float | None
    max_p95_latency: float | None
    min_agreement: float | None = None
    """The agreement with gold a candidate must guarantee, with probability 1 - `delta`."""
    delta: float | None = None


class Escalation(_Strict):
    """Selective judging (judge-compare --alpha, --min-agreement)."""

    alpha: float
    delta: float
    min_agreement: float | None
    human_cost_per_review: float | None
    grid: list[float]
    """The thresholds tested, fixed in advance."""
    alone: list[SelectiveFigures]
    """Each graded candidate alone, then a person."""
    cascades: list[SelectiveFigures]
    ungraded: list[str]
    """The candidates with no graded score, and why."""


class Test(_Strict):
    """The pick against the runner-up, on the cases both judged with identical content."""

    method: Literal["exact McNemar", "DeLong"]
    """The test of the pick's operating point; both are given where both ran."""
    p_value: float | None
    alpha: float
    significant: bool
    """Whether the pick is better than the runner-up at `alpha` by `method`."""
    cases: int
    pick_only: int
    runner_up_only: int
    mcnemar_p: float
    delong_p: float | None
    graded_cases: int


class Decision(_Strict):
    quality: Quality
    target_recall: float
    constraints: Constraints
    pick: CandidateName | None
    """The best quality among the candidates meeting every constraint; null if none does."""
    runner_up: CandidateName | None
    prefer: CandidateName | None
    """The one to deploy: the pick, unless it is not significantly better than the runner-up
    and the runner-up is cheaper (or, with costs unknown, faster)."""
    prefer_reason: Preference | None
    test: Test | None
    reason: str | None
    """Why there is no pick: the constraint that excluded the most candidates."""
    summary: list[str]
    """The report's answer, sentence by sentence."""
    cost_known: bool
    """Whether every candidate's logs record a cost."""
    latency: str
    """What the latency figures measure."""
    frontier: list[CandidateFigures]
    """Every candidate, with its figures and frontier share."""
    resamples: int
    usable_resamples: int
    seed: int
    escalation: Escalation | None = None
    """Selective judging's calibrations, where judge-compare was asked for them."""


def _stages(s: Selective | None) -> list[StageThreshold] | None:
    if s is None:
        return None
    return [
        StageThreshold(version=j.version, model=j.model, threshold=t)
        for j, t in zip(s.judges, s.cascade.thresholds, strict=True)
    ]


def _selective_keys(c: Candidate, selective: bool) -> dict[str, Any]:
    """A candidate's keys of selective judging: none at all without it."""
    return {"stages": _stages(c.selective)} if selective else {}


def _name(c: Candidate | None, selective: bool) -> CandidateName | None:
    if c is None:
        return None
    return CandidateName(version=c.version, model=c.model, **_selective_keys(c, selective))


def _selective(s: Selective, human_cost: float | None) -> SelectiveFigures:
    c = s.cascade
    reviews = 1000 * (c.cases - c.coverage.count) / c.cases if c.cases else math.nan
    stages = [
        StageFigures(
            version=j.version,
            model=j.model,
            confidence_from=j.source,
            threshold=stage.calibration.threshold,
            delta=stage.calibration.delta,
            reached=stage.reached,
            decided=stage.decided,
            errors=stage.calibration.errors,
            share=share,
            cost_per_answer=_number(stage.cost_per_answer),
            best_alpha=stage.calibration.best_alpha,
            cases_needed=stage.calibration.needed.cases if stage.calibration.needed else None,
            tests=[
                TestedThreshold(
                    threshold=t.threshold,
                    decided=t.decided,
                    errors=t.errors,
                    p_value=t.p_value,
                    rejected=t.rejected,
                )
                for t in stage.calibration.tests
            ],
        )
        # The shares end with a person's.
        for j, stage, share in zip(s.judges, c.stages, c.shares[:-1], strict=True)
    ]
    cost = c.cost_per_1k if human_cost is not None else math.nan
    return SelectiveFigures(
        name=s.name,
        alpha=c.alpha,
        delta=c.delta,
        cases=c.cases,
        guaranteed_agreement=c.guaranteed_agreement,
        coverage=Figure.share(c.coverage),
        person_share=c.shares[-1],
        agreement=_number(c.agreement),
        errors=c.errors,
        cost_per_1k=_number(cost),
        reviews_per_1k=reviews,
        stages=stages,
    )


def _escalation(e: EscalationResults) -> Escalation:
    o = e.options
    human = o.human_cost_per_review
    return Escalation(
        alpha=o.alpha,
        delta=o.delta,
        min_agreement=o.min_agreement,
        human_cost_per_review=human,
        grid=[float(t) for t in GRID],
        alone=[_selective(s, human) for s in e.alone],
        cascades=[_selective(s, human) for s in e.cascades],
        ungraded=e.ungraded,
    )


def _operating_point(c: Candidate) -> Literal["verdict", "cut-off", "confidence threshold"]:
    if c.selective:
        return "confidence threshold"
    return "verdict" if c.threshold is None else "cut-off"


def _candidate(c: Candidate, escalation: EscalationResults | None) -> CandidateFigures:
    selective: dict[str, Any] = {}
    if escalation is not None:
        human = escalation.options.human_cost_per_review
        selective = {
            **_selective_keys(c, True),
            "guaranteed_agreement": _number(
                math.nan if c.guaranteed_agreement is None else c.guaranteed_agreement
            ),
            "selective": _selective(c.selective, human) if c.selective else None,
        }
    return CandidateFigures(
        version=c.version,
        model=c.model,
        members=list(c.members),
        cases=c.cases,
        calls=c.calls,
        operating_point=_operating_point(c),
        threshold=c.threshold,
        balanced_accuracy=Figure.of(c.figures["balanced_accuracy"]),
        recall=Figure.of(c.figures["recall"]),
        precision=Figure.of(c.figures["precision"]),
        failure_rate=Figure.of(c.figures["failure_rate"]),
        cost_per_1k=Figure.of(c.figures["cost_per_1k"]),
        latency_p50=Figure.of(c.figures["latency_p50"]),
        latency_p95=Figure.of(c.figures["latency_p95"]),
        flip_rate=Figure.of(c.figures["flip_rate"]),
        on_frontier=c.on_frontier,
        frontier_share=_number(c.frontier_share),
        meets_constraints=c.screened.meets,
        failed_constraints=[FLAGS[n] for n in c.screened.failed],
        unchecked_constraints=[FLAGS[n] for n in c.screened.unchecked],
        **selective,
    )


def _test(t: PickTest) -> Test:
    return Test(
        method=t.method,
        p_value=_number(t.p_value),
        alpha=ALPHA,
        significant=t.significant,
        cases=t.cases,
        pick_only=t.pick_only,
        runner_up_only=t.runner_up_only,
        mcnemar_p=t.mcnemar_p,
        delong_p=_number(t.delong.p_value) if t.delong is not None else None,
        graded_cases=t.graded_cases,
    )


def decision(d: Deployment) -> Decision:
    """The deploy decision as decision.json holds it; write it with `decision_json`, which
    leaves out the keys of selective judging where it was not asked for."""
    summary = verdict_lines(d)
    c = d.constraints
    on = d.escalation is not None
    guarantee = {"min_agreement": c.min_agreement, "delta": c.delta} if on else {}
    return Decision(
        quality=d.quality,
        target_recall=d.target_recall,
        constraints=Constraints(
            max_cost_per_1k=c.max_cost_per_1k,
            min_recall=c.min_recall,
            max_failure_rate=c.max_failure_rate,
            max_p95_latency=c.max_p95_latency,
            **guarantee,
        ),
        pick=_name(d.pick, on),
        runner_up=_name(d.runner_up, on),
        prefer=_name(d.preferred, on),
        prefer_reason=d.preference,
        test=_test(d.test) if d.test is not None else None,
        reason=summary[0] if d.pick is None else None,
        summary=summary,
        cost_known=all(not math.isnan(x.estimate("cost_per_1k")) for x in d.candidates),
        latency=LATENCY_MEASURED,
        frontier=[_candidate(x, d.escalation) for x in d.candidates],
        resamples=d.resampling.resamples,
        usable_resamples=d.usable,
        seed=d.resampling.seed,
        **({"escalation": _escalation(d.escalation)} if d.escalation else {}),
    )


def decision_json(d: Deployment) -> str:
    """decision.json's text: only the keys set, so that the keys of selective judging, each
    with a default, are there exactly where it was asked for."""
    return decision(d).model_dump_json(indent=2, exclude_unset=True) + "\n"
