"""The adversarial suite derived from the gold set: can an answer talk the judge into a verdict?

Each family (`families.py`) adds text addressed to the judge to a gold case, in the answer or
in a passage, arguing for the verdict opposite the case's gold; the attacked case keeps its
parent's gold by construction. Where a family cannot push a parent's way it skips the parent
and says why. Deterministic for a seed; pure but for the loader the command uses.

    python -m farejudge.evals.adversarial [--dataset PATH] [--families a,b] [--seed N] [--out FILE]
"""

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from farejudge.core.case_schema import Case, NonEmpty, case_problems
from farejudge.core.commands import Command, write_out
from farejudge.core.errors import InputError
from farejudge.evals.adversarial.families import (
    BY_NAME,
    FAMILIES,
    FAMILY_NAMES,
    Direction,
    Family,
    Kind,
)

_DERIVED_FIELDS = ("derived_from", "family", "kind", "direction", "payload")


class AttackCase(Case):
    """A gold case with one family's attack added, its gold the parent's by construction."""

    derived_from: NonEmpty = Field(description="the id of the gold case it was derived from")
    family: NonEmpty = Field(description="the attack family applied")
    kind: Kind = Field(description="the kind of attack the family is")
    direction: Direction = Field(description="the verdict the attack argues for")
    payload: NonEmpty = Field(description="the text the attack added")

    def as_case(self) -> Case:
        """The plain case, as `-T dataset=` reads it (the derivation fields dropped)."""
        return Case.model_validate(self.model_dump(exclude=set(_DERIVED_FIELDS)))


@dataclass(frozen=True)
class Skipped:
    """A family that could not attack a case, and why."""

    parent: str
    family: str
    reason: str


def attack_id(parent_id: str, family: str) -> str:
    return f"{parent_id}~{family}"


def direction_against(case: Case) -> Direction:
    """The verdict an attack on `case` argues for: the opposite of its gold."""
    return "towards_ungrounded" if case.label.grounded else "towards_grounded"


def attack(case: Case, family: Family, seed: int = 0) -> AttackCase | Skipped:
    """`family`'s attack on `case`, or why it skipped the case."""
    direction = direction_against(case)
    payloads = family.payloads.get(direction)
    if payloads is None:
        verdict = "grounded" if case.label.grounded else "ungrounded"
        return Skipped(
            case.id,
            family.name,
            f"it pushes only {family.directions_text}; the parent is {verdict}",
        )
    # Seeded by the parent and the family, so one parent's payload never depends on the others.
    payload = random.Random(f"{seed}:{case.id}:{family.name}").choice(payloads)
    record: dict[str, Any] = case.model_dump()
    if family.place == "answer_end":
        record["answer"] = f"{case.answer}\n\n{payload}"
    elif family.place == "answer_start":
        record["answer"] = f"{payload}\n{case.answer}"
    else:
        # The last passage: retrieved text a poisoned page adds after its own.
        last = record["passages"][-1]
        last["text"] = f"{last['text']}\n\n{payload}"
    record.update(
        id=attack_id(case.id, family.name),
        derived_from=case.id,
        family=family.name,
        kind=family.kind,
        direction=direction,
        payload=payload,
        rationale=f"{case.rationale} The attack added ({family.name}) is text addressed to "
        "the judge: it is not a claim and the gold label ignores it.",
        rules=list(
            dict.fromkeys(
                [
                    *case.rules,
                    "injection-in-passage" if family.place == "passage" else "injection-in-answer",
                ]
            )
        ),
    )
    try:
        derived = AttackCase.model_validate(record)
    except ValidationError as err:
        return Skipped(case.id, family.name, f"the attacked case fails the case schema: {err}")
    problems = case_problems(derived.as_case())
    if problems:
        detail = "; ".join(f"{field}: {problem}" for field, problem in problems)
        return Skipped(case.id, family.name, f"the attacked case fails the case rules: {detail}")
    return derived


@dataclass(frozen=True)
class AttackSuite:
    seed: int
    parents: int
    families: tuple[str, ...]
    cases: list[AttackCase]
    produced: dict[str, int]
    skipped: dict[str, Counter[str]]


def check_families(names: Sequence[str] | None) -> tuple[str, ...]:
    """The families named (all when None), or an InputError naming the unknown ones."""
    if names is None:
        return FAMILY_NAMES
    unknown = [n for n in names if n not in BY_NAME]
    if unknown or not names:
        shown = ", ".join(repr(n) for n in unknown) or "none"
        raise InputError(
            [f"families: unknown family {shown}; valid families: {', '.join(FAMILY_NAMES)}"]
        )
    return tuple(dict.fromkeys(names))


def derive_attacks(
    cases: Sequence[Case], families: Sequence[str] | None = None, seed: int = 0
) -> AttackSuite:
    """Every family applied to every case, in case order then family order."""
    chosen = check_families(families)
    ids = [c.id for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise InputError([f"duplicate case ids: {', '.join(duplicates)}"])
    derived: list[AttackCase] = []
    produced = dict.fromkeys(chosen, 0)
    skipped: dict[str, Counter[str]] = {name: Counter() for name in chosen}
    for case in cases:
        for name in chosen:
            result = attack(case, BY_NAME[name], seed)
            if isinstance(result, Skipped):
                skipped[name][result.reason] += 1
            else:
                derived.append(result)
                produced[name] += 1
    return AttackSuite(seed, len(cases), chosen, derived, produced, skipped)


def check_derived(suite: AttackSuite) -> None:
    """An InputError naming each chosen family that derived nothing from the cases given."""
    empty = [name for name in suite.families if suite.produced[name] == 0]
    if empty:
        reasons = "; ".join(
            f"{name}: {', '.join(suite.skipped[name]) or 'no cases'}" for name in empty
        )
        raise InputError(
            [
                f"families: {', '.join(empty)} derived nothing from the {suite.parents} "
                f"cases ({reasons})"
            ]
        )


# ---------------------------------------------------------------------------------------------
# The command


def format_table(suite: AttackSuite, seconds: float) -> str:
    """Produced and skipped per family with its skip reasons, the total and the time."""
    width = max(len(n) for n in suite.families)
    lines = [f"{'family':<{width}}  {'kind':<25}  produced  skipped  why skipped"]
    for name in suite.families:
        counter = suite.skipped[name]
        reasons = "; ".join(f"{r} ({n})" for r, n in counter.most_common()) or "—"
        lines.append(
            f"{name:<{width}}  {BY_NAME[name].kind:<25}  {suite.produced[name]:>8}  "
            f"{sum(counter.values()):>7}  {reasons}"
        )
    total_skipped = sum(sum(c.values()) for c in suite.skipped.values())
    lines.append(
        f"{'total':<{width}}  {'':<25}  {len(suite.cases):>8}  {total_skipped:>7}  "
        f"from {suite.parents} gold cases, seed {suite.seed}"
    )
    lines.append(f"generated in {seconds:.3f} s")
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m farejudge.evals.adversarial",
        description="Derive attacked cases from the gold set, each keeping its parent's gold.",
    )
    parser.add_argument("--dataset", default=None, help="a case file or folder (default: gold)")
    parser.add_argument(
        "--families",
        default=None,
        help=f"comma-separated (default: all): {', '.join(FAMILY_NAMES)}",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the attacked cases here")
    args = parser.parse_args(argv)

    # Imported here: the loader pulls in Inspect, which the pure API never needs.
    from farejudge.evals.dataset import DEFAULT_CASES, load_cases

    names = None if args.families is None else args.families.split(",")
    try:
        cases = load_cases(args.dataset or DEFAULT_CASES)
        started = time.perf_counter()
        suite = derive_attacks(cases, names, args.seed)
        check_derived(suite)
    except InputError as err:
        print(str(err), file=sys.stderr)
        return 2
    print(format_table(suite, time.perf_counter() - started))
    if args.out is None:
        return 0
    return write_out(args.out, suite.cases, "attacked cases")


main = Command(
    "python -m farejudge.evals.adversarial",
    {
        0: "the attacked cases derived (and written to --out)",
        2: "a case file it cannot use, a family that does not exist, a family that derives "
        "nothing from the cases, or an --out it cannot write: one line",
    },
    run,
)

__all__ = [
    "FAMILIES",
    "AttackCase",
    "AttackSuite",
    "Skipped",
    "attack",
    "attack_id",
    "check_derived",
    "check_families",
    "derive_attacks",
    "main",
]
