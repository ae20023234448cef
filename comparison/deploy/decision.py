"""decision.json: its schema, and the deploy decision written for CI beside cases.jsonl.

Its schema is `Decision.model_json_schema()`. An undefined figure (no cost recorded, no
ungrounded case to measure recall on) is null, never NaN, so any JSON reader takes it.
"""

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict

from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.frontier import Quality
from farejudge.comparison.deploy.pick import ALPHA, PickTest, Preference
from farejudge.comparison.deploy.sections import FLAGS, LATENCY_MEASURED, verdict_lines
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


class CandidateName(_Strict):
    version: str
    model: str
    """The judge model, or for a panel `panel (a, b, c)`."""


class CandidateFigures(CandidateName):
    members: list[str]
    """A panel's judge models; empty for one judge."""
    cases: int
    calls: int
    operating_point: Literal["verdict", "cut-off"]
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


class Constraints(_Strict):
    max_cost_per_1k: float | None
    min_recall: float | None
    max_failure_rate: float | None
    max_p95_latency: float | None


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


def _name(c: Candidate | None) -> CandidateName | None:
    return None if c is None else CandidateName(version=c.version, model=c.model)


def _candidate(c: Candidate) -> CandidateFigures:
    return CandidateFigures(
        version=c.version,
        model=c.model,
        members=list(c.members),
        cases=c.cases,
        calls=c.calls,
        operating_point="verdict" if c.threshold is None else "cut-off",
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
    summary = verdict_lines(d)
    c = d.constraints
    return Decision(
        quality=d.quality,
        target_recall=d.target_recall,
        constraints=Constraints(
            max_cost_per_1k=c.max_cost_per_1k,
            min_recall=c.min_recall,
            max_failure_rate=c.max_failure_rate,
            max_p95_latency=c.max_p95_latency,
        ),
        pick=_name(d.pick),
        runner_up=_name(d.runner_up),
        prefer=_name(d.preferred),
        prefer_reason=d.preference,
        test=_test(d.test) if d.test is not None else None,
        reason=summary[0] if d.pick is None else None,
        summary=summary,
        cost_known=all(not math.isnan(x.estimate("cost_per_1k")) for x in d.candidates),
        latency=LATENCY_MEASURED,
        frontier=[_candidate(x) for x in d.candidates],
        resamples=d.resampling.resamples,
        usable_resamples=d.usable,
        seed=d.resampling.seed,
    )
