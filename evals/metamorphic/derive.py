"""A metamorphic suite derived from the gold set: does a prompt fix generalize?

CheckList-style: each relation edits a gold case in a way whose effect on the gold label is
known by construction — invariance relations leave it as it was, directional ones make the
answer ungrounded with a known claim — or, where it cannot be applied safely, skips the case
and says why. Deterministic for a seed; pure but for reading the corpus once.

    python -m farejudge.evals.metamorphic [--dataset PATH] [--seed N] [--out FILE.jsonl]
"""

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from farejudge.core.case_schema import Case
from farejudge.core.commands import Command, write_out
from farejudge.evals.metamorphic.derived_case import (
    DIRECTIONAL,
    INVARIANCE,
    RELATIONS,
    DerivedCase,
    Relation,
    Skipped,
    derived_id,
)
from farejudge.evals.metamorphic.policy_corpus import DEFAULT_CORPUS, load_corpus
from farejudge.evals.metamorphic.relations import APPLY, Context

__all__ = [
    "DIRECTIONAL",
    "INVARIANCE",
    "MIN_PER_RELATION",
    "RELATIONS",
    "DerivedCase",
    "Relation",
    "Skipped",
    "Suite",
    "derive_one",
    "derive_suite",
    "derived_id",
    "main",
]

MIN_PER_RELATION = 20
"""The issue's target: at least this many cases per relation, or a stated reason."""

# Why the gold set itself limits a relation: shown with the skip counts when it falls short.
_WHY_FEW: dict[Relation, str] = {
    "passage_order": "it needs at least 2 passages",
    "tag_renumber": "it needs P<n> tags that no text of the case names",
    "distractor_passage": "it needs an answer with no silence claim and an other-agency "
    "section free of the answer's numbers",
    "small_talk_turns": "it applies to every case",
    "value_changed": "it needs a grounded answer with a price, age or count in digits that "
    "is not the rider's own",
    "supporting_passage_removed": "it needs a grounded answer with at least 2 passages, one of "
    "which alone states a number the answer uses, and no other sentence leaning on that passage",
    "fact_moved_to_turns": "it needs what supporting_passage_removed needs, and a passage with "
    "no text addressed to the judge",
    "fetch_date_shifted": "it needs an answer that states a fetch date agreeing with a "
    "provenance line, outside any gold claim",
}


@dataclass(frozen=True)
class Suite:
    """The derived cases of one seed, and per relation what was produced and what skipped."""

    seed: int
    parents: int
    cases: list[DerivedCase]
    produced: dict[Relation, int]
    skipped: dict[Relation, Counter[str]]
    """Per relation, how many parents were skipped for each reason."""
    skips: list[Skipped] = field(default_factory=list)
    """Every skip, with the case it concerns and what in it made the relation unsafe."""

    def shortfalls(self, minimum: int = MIN_PER_RELATION) -> dict[Relation, str]:
        """Each relation below `minimum` derived cases, with the stated reason why."""
        found: dict[Relation, str] = {}
        for relation in RELATIONS:
            produced = self.produced[relation]
            if produced >= minimum:
                continue
            reasons = "; ".join(f"{r} ({n})" for r, n in self.skipped[relation].most_common())
            found[relation] = (
                f"{produced} < {minimum}: {_WHY_FEW[relation]}, which {produced} of the "
                f"{self.parents} gold cases meet (skipped: {reasons or 'none'})"
            )
        return found


def derive_one(
    case: Case,
    relation: Relation,
    seed: int = 0,
    *,
    corpus: Path = DEFAULT_CORPUS,
    ungrounded_parents: bool = True,
) -> DerivedCase | Skipped:
    """One relation applied to one case: the derived case, or why it was skipped."""
    return APPLY[relation](case, Context(seed, load_corpus(corpus), ungrounded_parents))


def derive_suite(
    cases: Sequence[Case],
    seed: int = 0,
    *,
    corpus: Path = DEFAULT_CORPUS,
    ungrounded_parents: bool = True,
) -> Suite:
    """Every relation applied to every case, in case order then relation order.

    `ungrounded_parents=False` keeps the directional relations to grounded parents (the
    issue's strict reading); by default they may also edit a sentence of an ungrounded answer
    that holds no gold claim, the parent's claims kept in the derived label."""
    ids = [c.id for c in cases]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"duplicate case ids: {', '.join(duplicates)}")
    context = Context(seed, load_corpus(corpus), ungrounded_parents)
    derived: list[DerivedCase] = []
    skips: list[Skipped] = []
    produced: dict[Relation, int] = dict.fromkeys(RELATIONS, 0)
    skipped: dict[Relation, Counter[str]] = {r: Counter() for r in RELATIONS}
    for case in cases:
        for relation in RELATIONS:
            result = APPLY[relation](case, context)
            if isinstance(result, Skipped):
                skips.append(result)
                skipped[relation][result.reason] += 1
            else:
                derived.append(result)
                produced[relation] += 1
    return Suite(seed, len(cases), derived, produced, skipped, skips)


# ---------------------------------------------------------------------------------------------
# The command


def format_table(suite: Suite, seconds: float, top: int = 3) -> str:
    """Produced and skipped per relation with the top skip reasons, the total and the time."""
    width = max(len(r) for r in RELATIONS)
    lines = [
        f"{'relation':<{width}}  kind         produced  skipped  top skip reasons",
    ]
    for relation in RELATIONS:
        kind = "invariance" if relation in INVARIANCE else "directional"
        counter = suite.skipped[relation]
        reasons = "; ".join(f"{r} ({n})" for r, n in counter.most_common(top)) or "—"
        lines.append(
            f"{relation:<{width}}  {kind:<11}  {suite.produced[relation]:>8}  "
            f"{sum(counter.values()):>7}  {reasons}"
        )
    total_skipped = sum(sum(c.values()) for c in suite.skipped.values())
    lines.append(
        f"{'total':<{width}}  {'':<11}  {len(suite.cases):>8}  {total_skipped:>7}  "
        f"from {suite.parents} gold cases, seed {suite.seed}"
    )
    lines.append(f"generated in {seconds:.3f} s")
    for relation, why in suite.shortfalls().items():
        lines.append(f"below {MIN_PER_RELATION}: {relation}: {why}")
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m farejudge.evals.metamorphic",
        description="Derive metamorphic cases from the gold set, each with its gold label "
        "known by construction.",
    )
    parser.add_argument("--dataset", default=None, help="a case file or folder (default: gold)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the derived cases here")
    parser.add_argument(
        "--grounded-parents-only",
        action="store_true",
        help="directional relations on grounded parents only (by default they may also edit a "
        "claim-free sentence of an ungrounded answer)",
    )
    parser.add_argument(
        "--as-cases",
        action="store_true",
        help="write plain case records (no derived_from/relation/edit), for -T dataset=",
    )
    args = parser.parse_args(argv)

    # Imported here: the loader pulls in Inspect, which the pure API never needs.
    from farejudge.core.errors import InputError
    from farejudge.evals.dataset import DEFAULT_CASES, load_cases

    started = time.perf_counter()
    try:
        cases = load_cases(args.dataset or DEFAULT_CASES)
    except InputError as err:
        print(str(err), file=sys.stderr)
        return 2
    loaded = time.perf_counter()
    suite = derive_suite(cases, args.seed, ungrounded_parents=not args.grounded_parents_only)
    generated = time.perf_counter() - loaded
    print(format_table(suite, generated))
    print(f"loading the cases took {loaded - started:.3f} s")
    if args.out is None:
        return 0
    records = [c.as_case() if args.as_cases else c for c in suite.cases]
    return write_out(args.out, records, "derived cases")


main = Command(
    "python -m farejudge.evals.metamorphic",
    {
        0: "the cases derived (and written to --out)",
        2: "a case file it cannot use, or --out it cannot write: one line per problem",
    },
    run,
)
