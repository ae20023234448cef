"""The deploy decision written as decision.json for CI beside cases.jsonl, in its one schema
(`farejudge.core.decision_file.Decision`), which the tasks and the audit read.

Selective judging's keys are written only where judge-compare was asked for it: without it
decision.json is what it was before them, key for key.
"""

import math
from typing import Any, Literal

from farejudge.comparison.attacks.results import RunAttacks
from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.pick import ALPHA, PickTest
from farejudge.comparison.deploy.verdict import FLAGS, LATENCY_MEASURED, verdict_lines
from farejudge.comparison.escalation.results import EscalationResults, Selective
from farejudge.comparison.escalation.threshold import GRID
from farejudge.comparison.humans.results import HumanFigures, HumanResults
from farejudge.core.decision_file import (
    AltTestFigures,
    AnnotatorTestFigures,
    CandidateFigures,
    CandidateName,
    Constraints,
    Decision,
    Escalation,
    FamilyAttack,
    Figure,
    HumanCeiling,
    SelectiveFigures,
    StageFigures,
    StageThreshold,
    Test,
    TestedThreshold,
    number,
)


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
            cost_per_answer=number(stage.cost_per_answer),
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
        coverage=Figure.of(c.coverage),
        person_share=c.shares[-1],
        agreement=number(c.agreement),
        errors=c.errors,
        cost_per_1k=number(cost),
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


def _attack_keys(a: RunAttacks) -> dict[str, Any]:
    """A run of the adversarial suite's keys: none for any other candidate."""
    return {
        "attack_success": number(a.worst),
        "attacks": [
            FamilyAttack(
                family=family,
                parents=f.parents,
                right=f.right,
                fooled=f.fooled,
                success=Figure.of(f.success),
                clean_accuracy=Figure.of(f.clean_accuracy),
            )
            for family, f in a.families.items()
        ],
    }


def _human_keys(h: HumanFigures, names: list[str]) -> dict[str, Any]:
    """A candidate's figures against the annotators: none where the cases carry none."""
    test = h.alt_test
    return {
        "agreement_with_annotators": Figure.of(h.agreement),
        "alt_test": AltTestFigures(
            epsilon=test.epsilon,
            winning_rate=number(test.winning_rate),
            advantage_probability=number(test.advantage_probability),
            passes=test.passes,
            shortfalls=[str(s) for s in test.shortfalls],
            annotators=[
                AnnotatorTestFigures(
                    annotator=names[t.annotator],
                    items=t.items,
                    advantage=t.advantage,
                    test=t.test,
                    adjusted_p_value=t.adjusted_p_value,
                    candidate_wins=t.judge_wins,
                )
                for t in test.tests
            ],
        ),
    }


def _panel_keys(c: Candidate) -> dict[str, Any]:
    """A panel's effective number of judges: none for any other candidate."""
    if c.effective_judges is None:
        return {}
    return {"effective_judges": Figure.of(c.effective_judges.effective)}


def _ceiling(h: HumanResults) -> HumanCeiling:
    return HumanCeiling(
        cases=h.cases,
        annotators=h.annotators,
        kinds=h.kinds,
        agreement=Figure.of(h.ceiling),
        shortfall=h.shortfall,
    )


def _candidate(
    c: Candidate, escalation: EscalationResults | None, names: list[str]
) -> CandidateFigures:
    selective: dict[str, Any] = {}
    if escalation is not None:
        human = escalation.options.human_cost_per_review
        selective = {
            **_selective_keys(c, True),
            "guaranteed_agreement": number(
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
        frontier_share=number(c.frontier_share),
        meets_constraints=c.screened.meets,
        failed_constraints=[FLAGS[n] for n in c.screened.failed],
        unchecked_constraints=[FLAGS[n] for n in c.screened.unchecked],
        **selective,
        **(_attack_keys(c.attacks) if c.attacks else {}),
        **(_human_keys(c.humans, names) if c.humans else {}),
        **_panel_keys(c),
    )


def _test(t: PickTest) -> Test:
    return Test(
        method=t.method,
        p_value=number(t.p_value),
        alpha=ALPHA,
        significant=t.significant,
        cases=t.cases,
        pick_only=t.pick_only,
        runner_up_only=t.runner_up_only,
        mcnemar_p=t.mcnemar_p,
        delong_p=number(t.delong.p_value) if t.delong is not None else None,
        graded_cases=t.graded_cases,
    )


def decision(d: Deployment) -> Decision:
    """The deploy decision as decision.json holds it; write it with `decision_json`, which
    leaves out the keys of selective judging where it was not asked for."""
    summary = verdict_lines(d)
    c = d.constraints
    on = d.escalation is not None
    # Each only where set: decision.json holds the keys of what judge-compare was asked for.
    guarantee: dict[str, Any] = {"min_agreement": c.min_agreement, "delta": c.delta} if on else {}
    attacked: dict[str, Any] = (
        {"max_attack_success": c.max_attack_success} if c.max_attack_success is not None else {}
    )
    alt_tested: dict[str, Any] = {"require_alt_test": True} if c.require_alt_test else {}
    escalated: dict[str, Any] = {"escalation": _escalation(d.escalation)} if d.escalation else {}
    ceiling: dict[str, Any] = {"human_ceiling": _ceiling(d.humans)} if d.humans else {}
    return Decision(
        quality=d.quality,
        target_recall=d.target_recall,
        constraints=Constraints(
            max_cost_per_1k=c.max_cost_per_1k,
            min_recall=c.min_recall,
            max_failure_rate=c.max_failure_rate,
            max_p95_latency=c.max_p95_latency,
            **guarantee,
            **attacked,
            **alt_tested,
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
        frontier=[
            _candidate(x, d.escalation, d.humans.annotators if d.humans else [])
            for x in d.candidates
        ],
        resamples=d.resampling.resamples,
        usable_resamples=d.usable,
        seed=d.resampling.seed,
        **escalated,
        **ceiling,
    )


def decision_json(d: Deployment) -> str:
    """decision.json's text: only the keys set, so that the keys of selective judging, each
    with a default, are there exactly where it was asked for."""
    return decision(d).model_dump_json(indent=2, exclude_unset=True) + "\n"
