"""Builds the report's results: each feature's, from the runs, held side by side."""

from collections.abc import Sequence
from dataclasses import dataclass, replace

from farejudge.comparison.attacks.results import AttackResults, attack_results
from farejudge.comparison.cases import per_case, report_order
from farejudge.comparison.deploy.candidates import Deployment, DeployOptions, deployment
from farejudge.comparison.escalation.results import (
    EscalationOptions,
    EscalationResults,
    escalation_results,
)
from farejudge.comparison.graded.results import GradedResults, graded_results
from farejudge.comparison.humans.results import HumanResults, human_results, logged_annotations
from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.panel.results import PanelFindings, panel_findings
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.results import VerdictResults, verdict_results
from farejudge.core.sample_case import GOLD_RELATION
from farejudge.raters import EPSILON_EXPERT


@dataclass(frozen=True)
class Report:
    """What judge-compare found in the runs, one field per feature. The sections take each its
    own feature's field, never the whole report."""

    runs: Runs
    resampling: Resampling
    verdicts: VerdictResults
    """The verdicts against gold: each run's figures, flips between versions, pinned cases."""
    graded: GradedResults
    """The judge's graded score P(ungrounded): per run and between versions."""
    panel: PanelFindings
    """Judge panels (majority verdicts per version) and the gold cases they doubt."""
    deployment: Deployment
    """Which candidate (a run, a panel) to deploy under the constraints, and the frontier."""
    attacks: AttackResults
    """The adversarial suite: each run's attack success per family, and the newest version
    against the one before it (none without attacked cases)."""
    escalation: EscalationResults | None = None
    """Selective judging: each graded candidate's calibrated threshold and the cascades, where
    judge-compare was asked for them (they are candidates of the deployment too)."""
    humans: HumanResults | None = None
    """The annotators beside the judges, on cases that carry several annotators' labels."""


def build_report(
    runs: Runs,
    resampling: Resampling | None = None,
    partial: bool = False,
    target_recall: float = 0.9,
    panel: Sequence[str] | None = None,
    deploy: DeployOptions | None = None,
    escalation: EscalationOptions | None = None,
    epsilon: float = EPSILON_EXPERT,
) -> Report:
    """Every feature's results over the runs' per-case frame, with one resampling for all
    (by default `Resampling()`, judge-compare's); selective judging's where `escalation` asks
    for it."""
    resampling = resampling or Resampling()
    cases = report_order(per_case(runs.samples), runs.versions)
    verdicts = verdict_results(runs, cases, resampling, partial)
    graded = graded_results(cases, runs.versions, runs.models, resampling, target_recall)
    panels = panel_findings(runs, cases, panel, resampling)
    # The pick stands on the gold cases as written. A suite's derived and attacked cases test
    # robustness (the relations, attack success, the gate and --max-attack-success read them),
    # but the pick's figures are what the audit expects of the judge in production, and its
    # calibrated threshold must hold there: neither may rest on edited cases.
    gold = runs.samples["relation"] == GOLD_RELATION
    gold_cases = cases["relation"] == GOLD_RELATION
    if not gold.all():
        runs_on_gold = replace(runs, samples=runs.samples[gold].reset_index(drop=True))
        on_gold = cases[gold_cases].reset_index(drop=True)
        graded_on_gold = graded_results(
            on_gold, runs.versions, runs.models, resampling, target_recall
        )
        panels_on_gold = panel_findings(runs_on_gold, on_gold, panel, resampling).panels
    else:
        runs_on_gold, on_gold, graded_on_gold = runs, cases, graded
        panels_on_gold = panels.panels
    selective = (
        escalation_results(on_gold, runs_on_gold.samples, panels_on_gold, escalation)
        if escalation is not None
        else None
    )
    attacks = attack_results(runs.samples, runs.versions, runs.current)
    humans = human_results(
        cases, panels.panels, logged_annotations(runs.samples), epsilon, resampling
    )
    return Report(
        runs=runs,
        resampling=resampling,
        verdicts=verdicts,
        graded=graded,
        panel=panels,
        deployment=replace(
            deployment(
                runs_on_gold,
                on_gold,
                graded_on_gold,
                panels_on_gold,
                deploy or DeployOptions(),
                resampling,
                target_recall,
                selective,
                attacks,
                humans,
            ),
            suite_cases=cases.loc[~gold_cases, "case"].nunique(),
        ),
        attacks=attacks,
        escalation=selective,
        humans=humans,
    )
