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
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from farejudge.core.case_schema import verdict_name
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


def label_line(name: str, label: Label) -> str:
    """One annotator's label of a case, as a disagreement lists it."""
    verdict = verdict_name(label.grounded)
    spans = "; ".join(f'"{s.text}" [{s.start}:{s.end}]' for s in label.spans)
    others = [v for v in label.response_set or [] if v != verdict]
    defensible = f", though {' and '.join(others)} is defensible" if others else ""
    return (
        f"- **{name}**: {verdict}{defensible}"
        + (f", spans {spans}" if spans else "")
        + f". {label.reason}"
    )


def _figure(x: float | None) -> str:
    return "—" if x is None or math.isnan(x) else f"{x:.3f}"


def _number(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else float(x)


def fleiss_note(many: Many, fleiss: float | None) -> str:
    if fleiss is not None:
        return _figure(fleiss)
    counts = sorted({len(each.labels) for each in many.compared})
    if not counts:
        return "— (no case labelled by two annotators)"
    return f"— (the compared cases have {counts[0]} to {counts[-1]} annotators, not one number)"


def render_section(many: Many, min_kappa: float) -> list[str]:
    """The figures among all the annotators, as Markdown lines."""
    lines = [f"## Among the annotators ({len(many.names)}: {', '.join(many.names)})", ""]
    if not many.compared:
        return [
            *lines,
            "No case was labelled by two annotators: alpha, kappa and Fleiss' kappa need two "
            "labels of a case.",
            "",
        ]
    found = many.figures
    alpha = found.alpha
    level = f"{LEVEL:.0%}"
    lines += [
        f"Cases labelled by two annotators or more: {len(many.compared)}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| Krippendorff's alpha (nominal) | {_figure(alpha.estimate)} ({level} interval "
        f"{_figure(alpha.low)} to {_figure(alpha.high)}, {RESAMPLES} bootstrap resamples of "
        "cases) |",
        f"| Fleiss' kappa | {fleiss_note(many, found.fleiss_kappa)} |",
        "",
        "| annotator | mean kappa with the rest |",
        "|---|---|",
        *(
            f"| {name} | {_figure(value)} |"
            for name, value in zip(many.names, found.with_rest, strict=True)
        ),
        "",
        f"| pair | cases | Cohen's kappa | span F1 | threshold {min_kappa} |",
        "|---|---|---|---|---|",
    ]
    for pair in many.pairs:
        i, j = many.names.index(pair.a), many.names.index(pair.b)
        verdict = "pass" if pair_passes(pair, min_kappa) else "FAIL"
        if not pair.pairs:
            verdict = "no case shared: left out"
        lines.append(
            f"| {pair.a} and {pair.b} | {len(pair.pairs)} | {_figure(found.pairwise_kappa[i, j])} "
            f"| {_figure(pair.spans.f1)} | {verdict} |"
        )
    lines.append("")
    return lines


def render_record(many: Many, min_kappa: float) -> dict[str, Any]:
    """The figures among all the annotators, for agreement.json."""
    found = many.figures
    alpha = found.alpha
    return {
        "annotators": many.names,
        "compared": len(many.compared),
        "alpha": {
            "estimate": _number(alpha.estimate),
            "low": _number(alpha.low),
            "high": _number(alpha.high),
            "level": LEVEL,
            "resamples": RESAMPLES,
            "seed": SEED,
        },
        "fleiss_kappa": _number(found.fleiss_kappa),
        "with_rest": {
            name: _number(value) for name, value in zip(many.names, found.with_rest, strict=True)
        },
        "pairs": [
            {
                "a": pair.a,
                "b": pair.b,
                "compared": len(pair.pairs),
                "kappa": _number(
                    found.pairwise_kappa[many.names.index(pair.a), many.names.index(pair.b)]
                ),
                "span_f1": _number(pair.spans.f1),
                "passes": pair_passes(pair, min_kappa) if pair.pairs else None,
            }
            for pair in many.pairs
        ],
    }


def _what_differs(each: Compared) -> str:
    return "verdicts differ" if not each.verdicts_agree else "spans differ"


def render_many_markdown(many: Many, min_kappa: float) -> str:
    """The report over three or more annotators: counts, the figures, each disagreement."""
    only = "; ".join(f"{name} {len(ids)}" for name, ids in many.only_one.items()) or "none"
    lines = [
        f"# Label agreement: {', '.join(many.names)}",
        "",
        f"Cases compared (two annotators or more): {len(many.compared)}; labelled by one "
        f"annotator only: {only}; stale labels (the case changed since): {len(many.stale)}; "
        f"labels that match no case (listed below): {len(many.unmatched)}.",
        "",
        f"Passes when each pair of annotators that shares a case has Cohen's kappa at least "
        f"{min_kappa}: {'pass' if passes(many, min_kappa) else 'FAIL'}.",
        "",
        *render_section(many, min_kappa),
    ]
    if many.unmatched:
        lines += [f"## Labels that match no case ({len(many.unmatched)})", ""]
        lines += [
            f"- {name}, label for `{each.label.case_id}`: {each.why}"
            for name, each in many.unmatched
        ]
        lines.append("")
    disagreements = [each for each in many.compared if not each.agreed]
    lines += [f"## Disagreements ({len(disagreements)})", ""]
    if not disagreements:
        lines += ["Every compared case has the same verdict and the same spans.", ""]
    for each in disagreements:
        rules = sorted({rule for label in each.labels for rule in label.rules})
        named = ", ".join(f"`{r}`" for r in rules) or "none given"
        lines += [
            f"**{each.case.id}** ({each.case.category}): {_what_differs(each)}; rules: {named}",
            "",
            f"> {each.case.answer}",
            "",
            *(label_line(label.annotator, label) for label in each.labels),
            "",
        ]
    return "\n".join(lines)


def render_many_json(many: Many, min_kappa: float) -> dict[str, Any]:
    """agreement.json over three or more annotators: each compared case keeps every label."""
    return {
        "annotators": many.names,
        "min_kappa": min_kappa,
        "passes": passes(many, min_kappa),
        "among": render_record(many, min_kappa),
        "cases": [
            {
                "id": each.case.id,
                "category": each.case.category,
                "status": "agreed" if each.agreed else "disagreed",
                "verdicts_agree": each.verdicts_agree,
                "spans_agree": each.spans_agree,
                "labels": [label.model_dump(mode="json") for label in each.labels],
            }
            for each in many.compared
        ],
        "only_one": many.only_one,
        "stale": many.stale,
        "unmatched": [
            {"annotator": name, "case_id": each.label.case_id, "kind": each.kind, "why": each.why}
            for name, each in many.unmatched
        ],
    }
