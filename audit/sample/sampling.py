"""The period's audit sample, drawn from its drafts file: the record and the drafts to label.

The drafts file is read twice, one draft at a time: once for the population (each draft's id
and content hash, what the sample is drawn from and recorded against), once to copy out the
drawn drafts in the order drawn, which is the order to label them in. The copy is a drafts file
`judge-label` serves as it is: the drafts as intake wrote them, with no verdict, so the
labelling stays blind.

A stratified sample labels more of what the judge flags: its strata are the judge's verdicts
in the period's judged logs, which must have judged these very drafts.

The estimate never trusts the record: it draws the sample again from what `sample.json`
records (its seed, design, sizes and, for a stratified design, the strata from the verdicts of
the logs it names) over the drafts the logs judged, and refuses a record that differs in
anything, naming the first difference.
"""

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest
from pathlib import Path

from farejudge.audit.inputs.judged import Judged, read_judged
from farejudge.audit.stats.design import (
    ALL,
    DECIDED,
    ESCALATED,
    FLAGGED,
    PASSED,
    AuditSample,
    Stratum,
    draw_stratified,
    draw_uniform,
    strata_by_escalation,
    strata_by_verdict,
)
from farejudge.audit.stats.planning import JudgeFigures, neyman_allocation, verdict_spreads
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
    logs: tuple[str, ...]
    """The file names of the logs whose verdicts these are."""


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
        tuple(_log_name(log) for log in judged.logs),
    )


def _log_name(location: str) -> str:
    return location.replace("\\", "/").rsplit("/", 1)[-1]


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
        drawn = draw_stratified(population, strata.of, strata.allocation, seed)
    except ValueError as err:
        raise InputError([str(err)]) from None
    return drawn.model_copy(update={"strata_from": strata.logs})


VERDICT_STRATA = frozenset({FLAGGED, PASSED})
ESCALATION_STRATA = frozenset({ESCALATED, DECIDED})


def check_drawn(sample: AuditSample, sample_file: str, judged: Judged) -> None:
    """An InputError of one line naming the first difference between `sample` and the sample
    its seed draws over the drafts `judged` holds (whose population hash `check_population`
    has compared): an edited seed, design, stratum or draft, an id twice or of no draft."""
    population = {
        str(draft): bytes(content).decode("ascii")
        for draft, content in zip(judged.ids.tolist(), judged.content.tolist(), strict=True)
    }
    strata = _recorded_strata(sample, sample_file, judged)
    try:
        if strata is None:
            again = draw_uniform(population, sample.strata[0].size, sample.seed)
        else:
            again = draw_stratified(population, strata.of, strata.allocation, sample.seed)
    except ValueError as err:
        raise InputError([f"{sample_file}: {err}"]) from None
    if again.population_hash != judged.population_sha256:
        raise InputError(
            [
                f"{judged.logs[-1]}: its drafts' content hashes hash to "
                f"{again.population_hash[:12]}, not to the population hash "
                f"{judged.population_sha256[:12]} the logs record: a log edited after its run?"
            ]
        )
    # A record from before strata_from took its strata from all the logs given.
    logs = strata.logs if strata is not None and sample.strata_from else ()
    again = again.model_copy(update={"strata_from": logs})
    for field in AuditSample.model_fields:
        recorded, drawn = getattr(sample, field), getattr(again, field)
        if recorded == drawn:
            continue
        where, recorded, drawn = _first_apart(field, recorded, drawn)
        raise InputError(
            [
                f"{sample_file}: {where} is {recorded}, but its seed {sample.seed} draws "
                f"{drawn} from the drafts the logs judged: not the sample drawn (an edited "
                "file?); draw it again with judge-audit sample"
            ]
        )


def _recorded_strata(sample: AuditSample, sample_file: str, judged: Judged) -> Strata | None:
    """The strata the record's design and sizes draw over the logs' verdicts; None for a
    uniform design."""
    names = [s.name for s in sample.strata]
    listed = ", ".join(repr(name) for name in names)
    if len(set(names)) < len(names):
        raise InputError([f"{sample_file}: strata {listed}: a stratum is listed twice"])
    if sample.design == "uniform":
        if names != [ALL]:
            raise InputError(
                [f"{sample_file}: strata {listed}: a uniform sample has the one stratum {ALL!r}"]
            )
        return None
    source = _strata_judged(sample, sample_file, judged)
    sizes = {s.name: s.size for s in sample.strata}
    if set(names) <= VERDICT_STRATA:
        return _strata(source, strata_by_verdict(source.verdict), sizes)
    if set(names) <= ESCALATION_STRATA:
        strata = strata_by_escalation(source.escalated.tolist())
        # Every escalated answer is drawn.
        return _strata(source, strata, {**sizes, ESCALATED: strata.count(ESCALATED)})
    raise InputError(
        [
            f"{sample_file}: strata {listed}: a stratified sample's strata are the judge's "
            f"verdicts ({FLAGGED!r}, {PASSED!r}) or its escalations ({ESCALATED!r}, "
            f"{DECIDED!r})"
        ]
    )


def _strata_judged(sample: AuditSample, sample_file: str, judged: Judged) -> Judged:
    """The judged drafts whose verdicts are the sample's strata: those of the logs it names
    (all the logs given, for a record that names none)."""
    given = {_log_name(log): log for log in judged.logs}
    if not sample.strata_from or set(sample.strata_from) == set(given):
        return judged
    missing = [name for name in sample.strata_from if name not in given]
    if missing:
        raise InputError(
            [
                f"{sample_file}: its strata are the verdicts of {missing[0]}, which is not "
                f"among the logs given ({', '.join(given)})"
            ]
        )
    return read_judged([given[name] for name in dict.fromkeys(sample.strata_from)])


def _first_apart(field: str, recorded: object, drawn: object) -> tuple[str, str, str]:
    """Where a field of the record and of the sample drawn again first differ, and each value
    there, as a person reads them."""
    if isinstance(recorded, tuple) and isinstance(drawn, tuple):
        pairs: Sequence[tuple[object, object]] = list(zip_longest(recorded, drawn))
        at = next(i for i, (mine, again) in enumerate(pairs) if mine != again)
        return f"{field}[{at}]", _shown_value(pairs[at][0]), _shown_value(pairs[at][1])
    return field, _shown_value(recorded), _shown_value(drawn)


def _shown_value(value: object) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, Stratum):
        return repr(f"{value.name}: {value.size:,} of {value.population:,}")
    return repr(value)
