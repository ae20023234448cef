"""Agreement among any number of annotators on the same cases, from `farejudge.raters`.

Each annotator's latest label of a case counts where it was given to the content the case
has now (as in `agreement.compare`); a case two or more annotators labelled so is compared.
On those cases: Krippendorff's alpha (nominal) with its bootstrap interval over cases,
Cohen's kappa and the span F1 (character overlap) of each pair of annotators, each
annotator's mean kappa with the rest, and Fleiss' kappa where every compared case has the
same number of annotators.

The gate (`--min-kappa`) generalises today's two-annotator rule to every pair: each pair of
annotators that shares a case must pass it (its kappa at least the threshold, or, where its
kappa is undefined, every verdict the same); with two annotators that is today's rule. Pairs
that share no case are named and left out; where no pair shares one, the gate fails.
"""

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from farejudge.core.spans import characters
from farejudge.labelling.agreement import Agreement, compare, ranges
from farejudge.labelling.agreement import passes as pair_passes
from farejudge.labelling.label_match import Unmatched, unmatched
from farejudge.labelling.records import Label, Labelled
from farejudge.raters import Agreement as Figures
from farejudge.raters import agreement as figures_of

RESAMPLES = 2000
"""Bootstrap resamples of alpha's interval; seeded, so a report is the same run again."""
SEED = 0
LEVEL = 0.95


@dataclass(frozen=True)
class Side:
    """One annotator (or the gold set read as labels) and every label of theirs."""

    name: str
    labels: list[Label]


@dataclass(frozen=True)
class Compared:
    """A case that two or more annotators labelled, with each one's label in the sides' order."""

    case: Labelled
    labels: list[Label]

    @property
    def verdicts_agree(self) -> bool:
        return len({label.grounded for label in self.labels}) == 1

    @property
    def spans_agree(self) -> bool:
        marked = [characters(ranges(label)) for label in self.labels]
        return all(each == marked[0] for each in marked[1:])

    @property
    def agreed(self) -> bool:
        """Every verdict the same and the same characters marked: ready to become gold."""
        return self.verdicts_agree and self.spans_agree


@dataclass(frozen=True)
class Many:
    """Every side's labels paired by case."""

    names: list[str]
    compared: list[Compared]
    pairs: list[Agreement]
    """Each pair of sides, in the sides' order, as two sides are compared."""
    only_one: dict[str, list[str]] = field(default_factory=dict)
    """Cases only one side labelled, by that side's name."""
    stale: list[str] = field(default_factory=list)
    unmatched: list[tuple[str, Unmatched]] = field(default_factory=list)

    def matrix(self) -> np.ndarray[Any, np.dtype[np.float64]]:
        """The compared cases by the sides: 1 ungrounded, 0 grounded, NaN not labelled."""
        found = np.full((len(self.compared), len(self.names)), np.nan)
        for row, each in enumerate(self.compared):
            for label in each.labels:
                found[row, self.names.index(label.annotator)] = float(not label.grounded)
        return found

    @functools.cached_property
    def figures(self) -> Figures:
        """Computed once: the Markdown and the record both show them."""
        return figures_of(self.matrix(), RESAMPLES, SEED, LEVEL)


def gather(cases: Sequence[Labelled], sides: Sequence[Side]) -> Many:
    """Each case's latest matching label of every side, and each pair compared."""
    found = [
        (side.name, each)
        for side in sides
        for each in unmatched(cases, list(enumerate(side.labels, start=1)))
    ]
    mismatched = {(name, each.label.case_id) for name, each in found}
    changed = {each.label.case_id for _, each in found if each.kind == "changed"}
    latest = [{label.case_id: label for label in side.labels} for side in sides]
    compared: list[Compared] = []
    only_one: dict[str, list[str]] = {}
    for case in cases:
        given = [
            labels[case.id]
            for side, labels in zip(sides, latest, strict=True)
            if case.id in labels and (side.name, case.id) not in mismatched
        ]
        if len(given) >= 2:
            compared.append(Compared(case, given))
        elif len(given) == 1:
            only_one.setdefault(given[0].annotator, []).append(case.id)
    pairs = [compare(cases, a.labels, b.labels, a.name, b.name) for a, b in combinations(sides, 2)]
    stale = [case.id for case in cases if case.id in changed]
    others = [(name, each) for name, each in found if each.kind != "changed"]
    return Many([s.name for s in sides], compared, pairs, only_one, stale, others)


def passes(many: Many, min_kappa: float) -> bool:
    """Every pair that shares a case passes; at least one pair shares one."""
    sharing = [pair for pair in many.pairs if pair.pairs]
    return bool(sharing) and all(pair_passes(pair, min_kappa) for pair in sharing)
