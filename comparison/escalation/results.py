"""Selective judging over the compared runs: each graded candidate alone, then a person, and
cascades of two or three of them, each calibrated on the gold cases for judge-compare's
`--alpha` and `--delta` (`threshold.calibrate`, `cascade.calibrate_cascade`).

A candidate is graded when its verdicts come with a confidence (`scorers.escalation`): from the
judge's token probabilities (a run graded by logprobs), from its agreement over several epochs
(the share of a case's epochs that gave the case's verdict, a failed epoch agreeing with
nothing), or, for a panel, from its vote share (the share of its members who voted the panel's
verdict). One epoch without logprobs is the verdict alone, 1.0 on every case: no graded score.

A case's verdict is the run's vote over its epochs as a panel member's is (`panel.majority.vote`:
the most common kind, an even split no verdict). What judging one answer costs is the recorded
cost of all its calls on it (every epoch; every member of a panel), averaged over its cases: a
selective judge graded over epochs must make them all. Its latency on a case is its slowest
call there, the calls being made together.
"""

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.escalation.binomial import Floats
from farejudge.comparison.escalation.cascade import Cascade, Judge, calibrate_cascade, route
from farejudge.comparison.logs.frame import LogsError
from farejudge.comparison.panel.majority import FAILURE, Panel, vote
from farejudge.scorers.escalation import confidence_of

LONGEST = 3
"""The most judges in a cascade, as the issue and the paper have it."""
PERSON = "a person"
PANEL = "panel"
"""How `--cascade` names a version's panel: `v3/panel`."""
_VERDICT = {"grounded": 0.0, "ungrounded": 1.0}

StageName = tuple[str, str]
"""A candidate as `--cascade` names it: its version and its model (or `panel`)."""


@dataclass(frozen=True)
class EscalationOptions:
    """judge-compare's options of selective judging, checked."""

    alpha: float = 0.1
    delta: float = 0.1
    min_agreement: float | None = None
    """A constraint of the deploy decision: the agreement a candidate must guarantee at delta
    (then alpha is 1 - min_agreement)."""
    human_cost_per_review: float | None = None
    """What a person's review of an answer costs; None where not given (then every cost with
    people in it is unknown)."""
    cascades: tuple[tuple[StageName, ...], ...] | None = None
    """The cascades named with `--cascade`, each in its order; None for the default: every
    chain of two or three graded runs of one version, cheapest first, where costs are known."""


@dataclass(frozen=True)
class GradedCandidate:
    """A candidate whose verdicts come with a confidence, per case it judged."""

    version: str
    model: str
    """The judge model, or for a panel `panel (a, b, c)`."""
    members: tuple[str, ...]
    source: str
    """Where its confidence comes from, in words."""
    cases: NDArray[np.str_]
    case_hash: NDArray[np.object_]
    gold: Floats
    verdict: Floats
    """1 ungrounded, 0 grounded, NaN no verdict (a judge failure, an even split, a panel tie)."""
    confidence: Floats
    """Of the verdict, in [0, 1]; NaN where there is none."""
    failure: Floats
    """Share of its calls on the case with no verdict (a panel's: 1 where it gave none)."""
    calls: Floats
    """Its calls on the case (epochs; 1 for a panel, as its failure counts)."""
    cost_per_answer: float
    """Mean recorded cost of all its calls on one answer; NaN where a call has none."""
    latency: Floats
    """Per case, its slowest call's working time; NaN where unknown."""

    @property
    def name(self) -> str:
        return f"{self.version} with {self.model}"


@dataclass(frozen=True)
class Selective:
    """Graded candidates in order, then a person: one alone, or a cascade of two or three."""

    judges: tuple[GradedCandidate, ...]
    cascade: Cascade
    """Calibrated on `cases`: the thresholds, what each stage decides, the cost."""
    cases: NDArray[np.str_]
    """The gold cases every judge judged with identical content."""
    index: tuple[NDArray[np.int64], ...]
    """Per judge, the position of each of `cases` among its own cases."""
    route: NDArray[np.int64]
    """Per case, the judge that decides it (its index), or -1 for a person."""
    named: bool = False
    """Named with `--cascade`."""

    @property
    def version(self) -> str:
        versions = list(dict.fromkeys(j.version for j in self.judges))
        return " → ".join(versions)

    @property
    def model(self) -> str:
        return " → ".join([*(j.model for j in self.judges), PERSON])

    @property
    def name(self) -> str:
        if len({j.version for j in self.judges}) == 1:
            return f"{self.version} with {self.model}"
        return " → ".join([*(j.name for j in self.judges), PERSON])

    @property
    def decided(self) -> bool:
        """Whether its judges decide any answer alone: otherwise every answer goes to a person,
        and it is no way to deploy a judge."""
        return self.cascade.guaranteed

    def stage(self, judge: int) -> tuple[NDArray[np.bool_], Floats]:
        """Judge `judge`'s share of the cases: which it decides, and its verdicts on them all."""
        return self.route == judge, self.judges[judge].verdict[self.index[judge]]


@dataclass(frozen=True)
class EscalationResults:
    options: EscalationOptions
    graded: list[GradedCandidate]
    ungraded: list[str]
    """The candidates with no graded score, one line each saying why."""
    alone: list[Selective]
    """Each graded candidate alone, then a person."""
    cascades: list[Selective]
    notes: list[str] = field(default_factory=list)

    @property
    def selective(self) -> list[Selective]:
        return [*self.alone, *self.cascades]


def _per_case(samples: pd.DataFrame, column: str, how: str) -> pd.Series:
    """Each case's calls summed (`sum`) or their slowest (`max`); NaN where any is unknown."""
    grouped = samples.groupby("case", sort=False)[column]
    found: pd.Series = grouped.agg(how)
    return found.where(grouped.count() == grouped.size())


def _mean(values: Floats) -> float:
    return math.nan if len(values) == 0 or np.isnan(values).any() else float(values.mean())


def _run(version: str, model: str, rows: pd.DataFrame, samples: pd.DataFrame) -> GradedCandidate:
    ids = rows["case"].astype(str).to_numpy()
    votes = [vote(kinds) for kinds in rows["kinds"]]
    verdict = np.array([_VERDICT.get(v, math.nan) for v in votes])
    epochs = rows["epochs"].to_numpy(dtype=float)
    agreeing = np.array([kinds.get(v, 0) for kinds, v in zip(rows["kinds"], votes, strict=True)])
    p = rows["p_ungrounded"].to_numpy(dtype=float)
    sources = rows["graded_source"].to_numpy(dtype=str)
    logprobs = (sources == "logprobs") & ~np.isnan(p)
    # One source for the run, as its option gave it: a case of a logprobs run without a reading
    # has no confidence (never the share of its epochs); a run graded off has none.
    if logprobs.any():
        source = "logprobs"
        confidence = np.where(logprobs, confidence_of(verdict, p), math.nan)
    else:
        source = f"agreement over {int(epochs.max())} epochs"
        by_epochs = (sources == "epochs").any()
        confidence = np.where(by_epochs & (epochs > 1), agreeing / epochs, math.nan)
    cost = _per_case(samples, "cost", "sum").reindex(ids).to_numpy(dtype=float)
    return GradedCandidate(
        version=version,
        model=model,
        members=(),
        source=source,
        cases=ids,
        case_hash=rows["case_hash"].to_numpy(dtype=object),
        gold=rows["gold_ungrounded"].to_numpy(dtype=float),
        verdict=verdict,
        confidence=np.where(np.isnan(verdict), math.nan, confidence),
        failure=rows["failure"].to_numpy(dtype=float),
        calls=epochs,
        cost_per_answer=_mean(cost),
        latency=_per_case(samples, "working_time", "max").reindex(ids).to_numpy(dtype=float),
    )


def _panel(panel: Panel, samples: pd.DataFrame) -> GradedCandidate:
    """`samples`: the samples of the panel's version, every model."""
    ids = np.array([c.case for c in panel.cases], dtype=str)
    verdict = np.array([_VERDICT.get(c.verdict, math.nan) for c in panel.cases])
    share = [
        sum(m.vote == c.verdict for m in c.members.values()) / len(c.members) for c in panel.cases
    ]
    mine = samples[samples["model"].isin(panel.members) & samples["case"].isin(ids)]
    cost = _per_case(mine, "cost", "sum").reindex(ids).to_numpy(dtype=float)
    return GradedCandidate(
        version=panel.version,
        model=f"panel ({', '.join(panel.members)})",
        members=tuple(panel.members),
        source=f"vote share of {len(panel.members)} judges",
        cases=ids,
        case_hash=np.array([c.case_hash for c in panel.cases], dtype=object),
        gold=np.array([c.gold == "ungrounded" for c in panel.cases], dtype=float),
        verdict=verdict,
        confidence=np.where(np.isnan(verdict), math.nan, share),
        failure=np.array([c.verdict == FAILURE for c in panel.cases], dtype=float),
        calls=np.ones(len(ids)),
        cost_per_answer=_mean(cost),
        latency=_per_case(mine, "working_time", "max").reindex(ids).to_numpy(dtype=float),
    )


def _why_ungraded(rows: pd.DataFrame) -> str:
    """Why a run has no confidence on any case: `rows` are its cases (per-case frame)."""
    if (rows["failure"] == 1).all():
        # No verdict, so nothing to grade, whatever its graded option: not a log without
        # graded scores.
        epochs = int(rows["epochs"].max())
        each = "every epoch of every case" if epochs > 1 else "every case"
        return f"{each} a judge failure: no verdict to grade"
    if (rows["graded_source"] == "logprobs").any():
        return "its logprobs gave no graded score on any case"
    if (rows["graded_source"] == "epochs").any() and (rows["epochs"] == 1).all():
        return "one epoch without logprobs: its confidence is its verdict, 1.0 on every case"
    return "no graded score in its logs (graded=off, or a log from before graded scores)"


def calibrate_selective(
    judges: Sequence[GradedCandidate], options: EscalationOptions, named: bool = False
) -> Selective:
    """The judges in the order given, then a person, calibrated on the cases every one of them
    judged with identical content."""
    first = judges[0]
    shared = pd.Series(first.case_hash, index=first.cases)
    for judge in judges[1:]:
        other = pd.Series(judge.case_hash, index=judge.cases)
        common = shared.index.intersection(other.index, sort=False)
        same = (shared[common] == other[common]).to_numpy(dtype=bool)
        shared = shared[common[same]]
    cases = shared.index.to_numpy(dtype=str)
    index = tuple(pd.Index(j.cases).get_indexer(cases).astype(np.int64) for j in judges)
    cascade = calibrate_cascade(
        [
            Judge(j.name, j.verdict[at], j.confidence[at], j.cost_per_answer)
            for j, at in zip(judges, index, strict=True)
        ],
        first.gold[index[0]],
        options.alpha,
        options.delta,
        math.nan if options.human_cost_per_review is None else options.human_cost_per_review,
    )
    chosen = route(
        [j.verdict[at] for j, at in zip(judges, index, strict=True)],
        [j.confidence[at] for j, at in zip(judges, index, strict=True)],
        cascade.thresholds,
    )
    return Selective(tuple(judges), cascade, cases, index, chosen, named)


def _default_chains(graded: Sequence[GradedCandidate]) -> tuple[list[list[GradedCandidate]], str]:
    """Every chain of two or three graded runs (not panels) of one version, cheapest first; and,
    where some version's costs are unknown, a note saying it has none."""
    chains: list[list[GradedCandidate]] = []
    unpriced = []
    for version in dict.fromkeys(g.version for g in graded):
        runs = [g for g in graded if g.version == version and not g.members]
        if len(runs) < 2:
            continue
        if any(math.isnan(g.cost_per_answer) for g in runs):
            unpriced.append(version)
            continue
        ranked = sorted(runs, key=lambda g: g.cost_per_answer)
        for size in range(2, min(LONGEST, len(ranked)) + 1):
            chains.extend(list(chain) for chain in itertools.combinations(ranked, size))
    note = (
        f"No cascade of {', '.join(unpriced)}: a cascade puts its judges in order of cost, "
        "and the logs record none (give judge-matrix --model-cost-config a price file, or name "
        "the cascades in order with --cascade)."
        if unpriced
        else ""
    )
    return chains, note


class CascadeError(LogsError):
    """`--cascade` names what these logs cannot make a cascade of; the message says why."""


def _chosen(
    graded: Sequence[GradedCandidate], ungraded: dict[str, str], named: StageName
) -> GradedCandidate:
    version, model = named
    for g in graded:
        if g.version == version and (g.model == model or (model == PANEL and g.members)):
            return g
    given = f"--cascade {version}/{model}"
    name = f"{version} with {model}"
    if name in ungraded:
        raise CascadeError(
            f"{given}: {name} has no graded score ({ungraded[name]}), so no confidence to "
            "hold to a threshold"
        )
    raise CascadeError(f"{given}: no graded run or panel {name} in these logs")


def escalation_results(
    cases: pd.DataFrame,
    samples: pd.DataFrame,
    panels: Sequence[Panel],
    options: EscalationOptions,
) -> EscalationResults:
    """`cases`: the per-case frame in report order; `samples`: the runs' samples. A cascade
    named with `--cascade` must name graded candidates: a `CascadeError` says which does not."""
    graded: list[GradedCandidate] = []
    ungraded: dict[str, str] = {}
    by_run = dict(tuple(samples.groupby(["version", "model"], sort=False)))
    for (version, model), rows in cases.groupby(["version", "model"], sort=False):
        found = _run(str(version), str(model), rows, by_run[(version, model)])
        if np.isnan(found.confidence).all():
            ungraded[found.name] = _why_ungraded(rows)
        else:
            graded.append(found)
    for panel in panels:
        if panel.cases:
            graded.append(_panel(panel, samples[samples["version"] == panel.version]))
    notes = []
    if options.cascades is None:
        chains, note = _default_chains(graded)
        notes += [note] if note else []
    else:
        chains = [[_chosen(graded, ungraded, s) for s in named] for named in options.cascades]
    return EscalationResults(
        options=options,
        graded=graded,
        ungraded=[f"{name}: {why}" for name, why in ungraded.items()],
        alone=[calibrate_selective([g], options) for g in graded],
        cascades=[calibrate_selective(c, options, options.cascades is not None) for c in chains],
        notes=notes,
    )


def parse_cascade(text: str) -> tuple[StageName, ...]:
    """`--cascade v3/mockllm/a,v3/mockllm/b`: two or three candidates, each its version, a
    slash and its model (or `panel`), in the order they are asked."""
    given = f"--cascade {text}"
    named = [item.strip() for item in text.split(",") if item.strip()]
    if not 2 <= len(named) <= LONGEST:
        raise CascadeError(f"{given}: name two or three candidates, cheapest first")
    stages = []
    for item in named:
        version, slash, model = item.partition("/")
        if not (version and slash and model):
            raise CascadeError(f"{given}: {item!r} is not VERSION/MODEL (v3/openai/gpt-4o-mini)")
        stages.append((version, model))
    if len(set(stages)) < len(stages):
        raise CascadeError(f"{given}: a candidate is named twice")
    return tuple(stages)
