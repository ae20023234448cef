"""Gold under suspicion: cases a judge panel confidently disagrees with gold on.

Confidently means every member answered against gold in every epoch (a judge failure is no
claim against gold), and every member with a graded score has its mean P(ungrounded) on the
wrong side of 0.5 by at least MARGIN. Only gold cases as written are suspects: a derived
case's gold is made from its parent's, so a wrong one shows on the parent. What each judge
claimed is not in the comparison frame; it is read back from the suspects' samples alone.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from farejudge.comparison.logs.frame import SCORER, LogsError, Runs
from farejudge.comparison.panel.majority import Panel, PanelCase

MARGIN = 0.25
"""How far from 0.5 a member's graded score must lie on the wrong side."""


@dataclass(frozen=True)
class JudgeClaim:
    """What one member said about a suspect in one epoch of one version."""

    version: str
    model: str
    epoch: int
    verdict: str
    claims: list[str]
    reasoning: str


@dataclass(frozen=True)
class Suspect:
    case: str
    case_hash: str
    category: str
    gold: str
    """Gold's verdict kind: grounded or ungrounded."""
    versions: list[str]
    """The versions whose panel confidently disagreed with gold."""
    panel_versions: int
    """How many versions' panels judged the case with this content."""
    p_ungrounded: dict[str, float]
    """Version → the panel's mean graded score on the case; NaN where it has none."""
    claims: list[JudgeClaim] = field(default_factory=list)


def wrong_side(gold: str, p_ungrounded: float, margin: float = MARGIN) -> bool:
    """Whether a graded score says the opposite of gold by at least `margin`."""
    if gold == "ungrounded":
        return p_ungrounded <= 0.5 - margin
    return p_ungrounded >= 0.5 + margin


def confident(case: PanelCase, margin: float = MARGIN) -> bool:
    """Every member against gold in every epoch, its graded score (if any) well over the line."""
    return all(
        m.failed_epochs == 0
        and m.agree == 0
        and (math.isnan(m.p_ungrounded) or wrong_side(case.gold, m.p_ungrounded, margin))
        for m in case.members.values()
    )


def find_suspects(panels: Sequence[Panel], margin: float = MARGIN) -> list[Suspect]:
    """Per gold case and content, the versions whose panel confidently disagreed with gold."""
    judged: dict[tuple[str, str], list[tuple[str, PanelCase]]] = {}
    for panel in panels:
        for case in panel.cases:
            if case.relation == "gold":
                judged.setdefault((case.case, case.case_hash), []).append((panel.version, case))
    suspects = []
    for (case_id, case_hash), seen in sorted(judged.items()):
        doubted = [(version, case) for version, case in seen if confident(case, margin)]
        if doubted:
            first = doubted[0][1]
            suspects.append(
                Suspect(
                    case=case_id,
                    case_hash=case_hash,
                    category=first.category,
                    gold=first.gold,
                    versions=[version for version, _ in doubted],
                    panel_versions=len(seen),
                    p_ungrounded={version: case.p_ungrounded for version, case in doubted},
                )
            )
    return suspects


def _claim(log: str, version: str, model: str, case: str, epoch: int) -> JudgeClaim:
    # Imported here: Inspect takes seconds to import, and only a suspect needs its samples.
    from inspect_ai.log import read_eval_log_sample

    try:
        sample = read_eval_log_sample(log, case, epoch, exclude_fields={"events", "messages"})
    except (OSError, IndexError, ValueError) as err:
        raise LogsError(f"{Path(log).name}: cannot read case {case} epoch {epoch}: {err}") from err
    score = (sample.scores or {}).get(SCORER)
    verdict = (score.metadata or {}).get("verdict") if score else None
    if not isinstance(verdict, dict):
        raise LogsError(f"{Path(log).name}: case {case} epoch {epoch} has no verdict in its score")
    return JudgeClaim(
        version=version,
        model=model,
        epoch=epoch,
        verdict="grounded" if verdict.get("grounded") else "ungrounded",
        claims=[str(c) for c in verdict.get("unsupported_claims") or []],
        reasoning=str(verdict.get("reasoning") or ""),
    )


def with_claims(suspect: Suspect, panels: Sequence[Panel], runs: Runs) -> Suspect:
    """The suspect with what each member claimed on it, in every epoch of every doubting version."""
    samples = runs.samples
    claims = []
    for panel in panels:
        if panel.version not in suspect.versions:
            continue
        for model in panel.members:
            mine = samples[
                (samples["version"] == panel.version)
                & (samples["model"] == model)
                & (samples["case"] == suspect.case)
            ]
            for epoch in sorted(int(e) for e in mine["epoch"]):
                # A sharded run's log is its folder: the case is in its shard's file.
                log = runs.sample_log((panel.version, model), suspect.case)
                claims.append(_claim(log, panel.version, model, suspect.case, epoch))
    return replace(suspect, claims=claims)
