"""decision.json: its one schema, which judge-compare writes and the tasks and the audit read,
below every stage.

Its schema is `Decision.model_json_schema()`. An undefined figure (no cost recorded, no
ungrounded case to measure recall on) is null, never NaN, so any JSON reader takes it.

The adversarial suite's keys (each candidate's `attack_success` and `attacks`, the
constraints' `max_attack_success`) are written only for a run with attacked cases, and where
the constraint is given.

Selective judging's keys (`escalation`, each candidate's `stages`, `guaranteed_agreement` and
`selective`, the constraints' `min_agreement` and `delta`) are written only where judge-compare
was asked for it: without it decision.json is what it was before them, key for key.

The tasks (`-T decision=`) read `prefer` and `reason` alone, with these types
(`evals/deployed_judge.py`, where what a task cannot run is refused); the audit reads the
whole file against `Decision`. Nothing here imports Inspect: judge-compare starts without it.
"""

import math
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

DECISION_FILE = "decision.json"
PANEL = "panel ("
"""How decision.json names a panel's model: `panel (a, b, c)`."""

Quality = Literal["balanced_accuracy", "recall"]
"""The figure the pick maximises."""
Preference = Literal["significant", "cheaper", "same cost", "faster", "unknown"]
"""Why the judge to deploy is the one preferred."""


class Bounds(Protocol):
    """An estimate and its interval's ends (NaN where undefined)."""

    @property
    def estimate(self) -> float: ...

    @property
    def low(self) -> float: ...

    @property
    def high(self) -> float: ...


def number(x: float) -> float | None:
    """`x`, or None (JSON's null) where it is NaN."""
    return None if math.isnan(x) else float(x)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Figure(_Strict):
    """A figure and its 95 % interval; null where undefined."""

    estimate: float | None
    low: float | None
    high: float | None

    @classmethod
    def of(cls, i: Bounds) -> "Figure":
        return cls(estimate=number(i.estimate), low=number(i.low), high=number(i.high))


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


class FamilyAttack(_Strict):
    """One attack family's success on a run (the adversarial suite, docs/adversarial.md)."""

    family: str
    parents: int
    right: int
    """Parents the judge got right: the attack's trials."""
    fooled: int
    """Of those, the parents whose attacked case it got wrong."""
    success: Figure
    """fooled / right, with its 95 % Wilson interval."""
    clean_accuracy: Figure
    """right / parents, with its 95 % Wilson interval."""


class AnnotatorTestFigures(_Strict):
    """The candidate against one left-out annotator (the alternative annotator test)."""

    annotator: str
    items: int
    advantage: float
    """rho_j: the share of items where the candidate aligns with the others at least as well."""
    test: Literal["t", "wilcoxon"]
    adjusted_p_value: float
    """Benjamini-Yekutieli over the annotators."""
    candidate_wins: bool


class AltTestFigures(_Strict):
    """A candidate's alternative annotator test (Calderon, Reichart and Dror, 2025)."""

    epsilon: float
    winning_rate: float | None
    """ω; null where no annotator could be tested."""
    advantage_probability: float | None
    """rho; null where no annotator could be tested."""
    passes: bool
    """ω ≥ 0.5 with nothing short: only then can the candidate replace an annotator."""
    shortfalls: list[str]
    """What falls short of three annotators and 30 items each, and how many more."""
    annotators: list[AnnotatorTestFigures]


class HumanCeiling(_Strict):
    """The annotators' agreement with each other on the cases with two annotators or more."""

    cases: int
    annotators: list[str]
    kinds: list[str]
    agreement: Figure
    """The share of (case, pair of annotators) that agree, with its bootstrap interval."""
    shortfall: str | None
    """What the ceiling lacks (one annotator), and how many more; null where nothing."""


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
    attack_success: float | None = None
    """For a run of the adversarial suite: its highest attack success over the families,
    which `--max-attack-success` bounds; null where no family had a trial."""
    attacks: list[FamilyAttack] | None = None
    """For a run of the adversarial suite: each family's attack success."""
    agreement_with_annotators: Figure | None = None
    """On cases with annotators: the share of (case, annotator) pairs it agrees with, beside
    `Decision.human_ceiling`."""
    alt_test: AltTestFigures | None = None
    """On cases with annotators: its alternative annotator test."""
    effective_judges: Figure | None = None
    """For a panel: how many independent judges its members are worth (Kish's n_eff from
    their errors' correlation against gold); below 1.5 it is mostly one judge."""


class Constraints(_Strict):
    max_cost_per_1k: float | None
    min_recall: float | None
    max_failure_rate: float | None
    max_p95_latency: float | None
    min_agreement: float | None = None
    """The agreement with gold a candidate must guarantee, with probability 1 - `delta`."""
    delta: float | None = None
    max_attack_success: float | None = None
    """The highest attack success over the families a candidate may have; set where given."""
    require_alt_test: bool | None = None
    """Only candidates that pass the alternative annotator test; set where given."""


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
    human_ceiling: HumanCeiling | None = None
    """On cases with annotators (the contested set): how far they agree with each other."""
