"""The period's audit sample, drawn from its drafts file: the record and the drafts to label.

The drafts file is read twice, one draft at a time: once for the population (each draft's id
and content hash, what the sample is drawn from and recorded against), once to copy out the
drawn drafts in the order drawn, which is the order to label them in. The copy is a drafts file
`judge-label` serves as it is: the drafts as intake wrote them, with no verdict, so the
labelling stays blind.

A stratified sample labels more of what the judge flags: its strata are the judge's verdicts
in the period's judged logs, which must have judged these very drafts.
"""

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from farejudge.audit.design import (
    DECIDED,
    ESCALATED,
    FLAGGED,
    PASSED,
    AuditSample,
    draw_stratified,
    draw_uniform,
    strata_by_escalation,
    strata_by_verdict,
)
from farejudge.audit.judged import Judged
from farejudge.audit.planning import JudgeFigures, neyman_allocation, verdict_spreads
from farejudge.core.drafts import Draft, iter_drafts
from farejudge.core.errors import InputError
from farejudge.core.population import population_hash
from farejudge.core.text_input import shown

SEED_BITS = 31
"""A drawn seed's size: any non-negative integer serves; this one is short to read out."""


def fresh_seed() -> int:
    """A seed no one chose: the sample cannot be picked to please."""
    return secrets.randbelow(2**SEED_BITS)


def read_population(path: Path) -> dict[str, str]:
    """Each draft's id and content hash, or an InputError naming every problem of the file."""
    if not path.is_file():
        raise InputError([f"{shown(path)}: no such drafts file"])
    problems: list[str] = []
    population = {draft.id: draft.content_sha256 for draft in iter_drafts(path, problems.append)}
    if problems:
        raise InputError(problems)
    return population


def drawn_drafts(path: Path, sample: AuditSample) -> list[Draft]:
    """The sample's drafts from the drafts file, in the order drawn."""
    wanted = set(sample.ids)
    problems: list[str] = []
    found = {d.id: d for d in iter_drafts(path, problems.append) if d.id in wanted}
    if problems:
        raise InputError(problems)
    return [found[draft] for draft in sample.ids]


@dataclass(frozen=True)
class Strata:
    """The judge's verdicts as strata, and how many draws each gets."""

    of: dict[str, str]
    """Each draft's stratum."""
    allocation: dict[str, int]


def verdict_strata(
    population: Mapping[str, str],
    judged: Judged,
    size: int,
    flagged: int | None,
    figures: JudgeFigures | None,
    expected_rate: float,
    drafts_file: str,
) -> Strata:
    """The strata of the judge's verdicts over `population` and the draws of each: `flagged`
    from the flagged stratum and the rest from the passed, or else Neyman's allocation from
    the judge's figures at the pick."""
    _check_judged(population, judged, drafts_file)
    verdicts = strata_by_verdict(judged.verdict)
    sizes = {name: verdicts.count(name) for name in (FLAGGED, PASSED)}
    if flagged is not None:
        allocation = {FLAGGED: flagged, PASSED: size - flagged}
    elif figures is not None:
        allocation = neyman_allocation(size, sizes, verdict_spreads(figures, expected_rate))
    else:
        raise InputError(
            ["a stratified sample needs --flagged N, or --decision for Neyman's allocation"]
        )
    return _strata(judged, verdicts, allocation)


def escalation_strata(
    population: Mapping[str, str], judged: Judged, size: int, drafts_file: str
) -> Strata:
    """The strata of selective judging over `population`: every answer the judge escalated,
    and `size` drawn from those it decided alone."""
    _check_judged(population, judged, drafts_file)
    if judged.threshold is None:
        raise InputError(
            [
                f"{judged.logs[-1]}: the run held its answers to no confidence threshold, so it "
                "escalated none: judge the period with -T threshold= (or a decision.json whose "
                "pick escalates to a person), or draw without --escalated"
            ]
        )
    strata = strata_by_escalation(judged.escalated.tolist())
    return _strata(judged, strata, {ESCALATED: strata.count(ESCALATED), DECIDED: size})


def _strata(judged: Judged, strata: list[str], allocation: Mapping[str, int]) -> Strata:
    """Each judged draft's stratum (`strata`, in the logs' order), and the draws of each
    stratum that has drafts."""
    present = set(strata)
    return Strata(
        dict(zip(judged.ids.tolist(), strata, strict=True)),
        {name: n for name, n in allocation.items() if name in present},
    )


def _check_judged(population: Mapping[str, str], judged: Judged, drafts_file: str) -> None:
    if judged.population_sha256 != population_hash(population):
        raise InputError(
            [
                f"{judged.logs[-1]}: judged the drafts hashing to "
                f"{judged.population_sha256[:12]}, not {drafts_file}'s: the logs of another "
                "period's run"
            ]
        )


def draw(population: Mapping[str, str], size: int, seed: int, strata: Strata | None) -> AuditSample:
    """The sample, or an InputError saying why it cannot be drawn (too large, a stratum with
    no draw)."""
    try:
        if strata is None:
            if size > len(population):
                raise ValueError(f"--size {size}: the period has {len(population):,} drafts")
            return draw_uniform(population, size, seed)
        return draw_stratified(population, strata.of, strata.allocation, seed)
    except ValueError as err:
        raise InputError([str(err)]) from None
