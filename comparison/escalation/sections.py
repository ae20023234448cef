"""Selective judging's section, "Escalation with a guarantee": each graded candidate's calibrated
threshold, what it decides alone and what it would take where no threshold meets the target,
then the cascades; and the words the deploy decision's table uses for them."""

import math

from farejudge.comparison.escalation import plots
from farejudge.comparison.escalation.binomial import Proportion
from farejudge.comparison.escalation.results import (
    PERSON,
    EscalationResults,
    GradedCandidate,
    Selective,
)
from farejudge.comparison.escalation.threshold import GRID, Calibration
from farejudge.comparison.stats.intervals import Interval
from farejudge.shared.document.model import Section, Table, bad, good

TITLE = "Escalation with a guarantee"


def percent(x: float, decimals: int = 0) -> str:
    return "n/a" if math.isnan(x) else f"{x * 100:.{decimals}f} %"


def _coverage(p: Proportion) -> str:
    return f"{percent(p.estimate)} [{percent(p.low)}, {percent(p.high)}] ({p.count} of {p.total})"


def _cost(x: float) -> str:
    return "unknown" if math.isnan(x) else f"${x:,.4f}"


def _short(judge: GradedCandidate) -> str:
    """A judge as a stage is named in a cell: its model's name after the provider."""
    return f"panel of {len(judge.members)}" if judge.members else judge.model.split("/")[-1]


def route_text(s: Selective) -> str:
    """Where each answer goes: `confidence ≥ 0.975 → ≥ 0.9 → a person` ("none" for a judge
    that decides nothing alone)."""
    held = ["none" if t is None else f"≥ {t:g}" for t in s.cascade.thresholds]
    return f"confidence {' → '.join(held)} → {PERSON}"


def shares_text(s: Selective) -> str:
    """The share of answers each stage decides: `a 60 % · b 30 % · a person 10 %`."""
    names = [*(_short(j) for j in s.judges), PERSON]
    return " · ".join(f"{n} {percent(x)}" for n, x in zip(names, s.cascade.shares, strict=True))


def _cost_split(s: Selective, human: float | None) -> str:
    """The cost per 1,000 answers, and how much of it is people."""
    c = s.cascade
    reviews = 1000 * (c.cases - c.coverage.count) / c.cases
    if human is None:
        return f"unknown: {reviews:,.0f} reviews (give --human-cost-per-review)"
    return f"{_cost(c.cost_per_1k)} ({reviews:,.0f} reviews, {_cost(reviews * human)})"


def _no_threshold(name: str, c: Calibration) -> str:
    """Why a judge gets no threshold, what it could guarantee, and what it would take."""
    said = (
        f"{name}: no threshold meets α = {c.alpha:g} at δ = {c.delta:.3g} on these {c.cases} "
        "gold cases, so it decides nothing alone and guarantees nothing"
    )
    if c.tests:
        first = c.tests[0]
        said += (
            f"; it opened on {first.threshold:g} ({first.decided} decided, {first.errors} "
            f"wrong: p = {first.p_value:.3g})"
        )
    else:
        said += f" (no threshold decides the {c.first_decided} cases a test needs)"
    if c.best_alpha is not None:
        said += (
            f". The best it can guarantee here is α = {c.best_alpha:.3f} "
            f"({percent(1 - c.best_alpha, 1)} agreement)"
        )
    needed = c.needed
    if needed is not None and needed.cases is not None:
        said += (
            f"; α = {c.alpha:g} would take about {needed.cases:,} gold cases, if it kept the "
            f"record it has at {needed.threshold:g} ({needed.errors} wrong of "
            f"{needed.decided})"
        )
    elif needed is not None:
        said += (
            f"; no number of gold cases would do for α = {c.alpha:g}: it is wrong on "
            f"{needed.errors} of the {needed.decided} it is surest of (at {needed.threshold:g})"
        )
    return said + "."


def _alone_table(results: EscalationResults) -> Table:
    human = results.options.human_cost_per_review
    rows = []
    for s in results.alone:
        (judge,) = s.judges
        c = s.cascade.stages[0].calibration
        found = c.threshold is not None
        best = "none" if c.best_alpha is None else f"{c.best_alpha:.3f}"
        needed = c.needed.cases if c.needed is not None else None
        rows.append(
            [
                judge.name,
                judge.source,
                str(c.cases),
                f"{c.threshold:g}" if found else bad("none"),
                good(f"≥ {percent(1 - c.alpha, 1)}") if found else bad("none"),
                _coverage(c.coverage),
                f"{percent(c.agreement, 1)} ({c.errors} wrong)" if c.decided else "—",
                best,
                "—" if found else ("none would do" if needed is None else f"{needed:,}"),
                _cost_split(s, human),
            ]
        )
    columns = ["Candidate", "Confidence from", "Gold cases", "Threshold", "Guaranteed agreement"]
    columns += ["Decided alone [95 %]", "Agreement seen there", "Best α here", "Gold cases for α"]
    columns += ["Cost per 1,000 answers"]
    return Table(columns, rows, caption="Each graded candidate alone, then a person")


def _cascade_table(results: EscalationResults) -> Table:
    human = results.options.human_cost_per_review
    rows = [
        [
            s.name,
            str(s.cascade.cases),
            route_text(s),
            shares_text(s),
            good(f"≥ {percent(1 - s.cascade.alpha, 1)}") if s.decided else bad("none"),
            f"{percent(s.cascade.agreement, 1)} ({s.cascade.errors} wrong)" if s.decided else "—",
            _cost_split(s, human),
        ]
        for s in results.cascades
    ]
    columns = ["Cascade", "Gold cases", "Thresholds", "Decided at each stage"]
    columns += ["Guaranteed agreement", "Agreement seen", "Cost per 1,000 answers"]
    named = results.options.cascades is not None
    which = (
        "as named with --cascade"
        if named
        else "every chain of two or three graded runs of one version, cheapest first"
    )
    return Table(
        columns,
        rows,
        caption=(
            "Cascades, then a person: each judge calibrated on the gold cases that reach it, at "
            f"δ shared among the cascade's judges; {which}"
        ),
    )


def _lines(results: EscalationResults) -> list[str]:
    o = results.options
    return [
        f"With probability at least 1 − δ = {1 - o.delta:g} over the draw of the gold cases, "
        f"each judge below agrees with gold on at least 1 − α = {1 - o.alpha:g} of the answers "
        "it decides alone: those whose verdict's confidence is at or above its threshold. It "
        f"escalates the rest to {PERSON} (a cascade, to its next judge first), whose label is "
        "gold's. The confidence comes from the candidate's graded score: the judge's token "
        "probabilities, its agreement over epochs, or a panel's vote share; a judge failure is "
        "never decided alone.",
        f"Each threshold on a grid fixed in advance ({GRID[0]:g} to {GRID[-1]:g} in steps of "
        f"{GRID[1] - GRID[0]:g}) is tested strictest first, from the first that decides 30 gold "
        'cases, with the exact binomial p-value of "its error rate is above α", and the '
        "testing stops at the first not rejected at δ (Trust or Escalate's fixed-sequence "
        "testing); the threshold is the last rejected. A cascade's judges share δ. Coverage, "
        "the share decided alone, is measured on the gold cases, with its exact 95 % interval: "
        "it is not guaranteed. The cost per 1,000 answers counts each judge's calls on the "
        "answers that reach it and a person's review of each answer no judge decides"
        + (
            f" (${o.human_cost_per_review:,.4f} a review, --human-cost-per-review)."
            if o.human_cost_per_review is not None
            else "; with no --human-cost-per-review, a cost with reviews in it is unknown."
        )
        + " What the guarantee does not promise: docs/escalation.md.",
    ]


def ceiling_line(results: EscalationResults, ceiling: Interval) -> str:
    """The guarantee beside what annotators reach: gold is one person's label, and where people
    agree with each other less often than the guarantee promises agreement with gold, the
    promise is above what a person reaches."""
    promised = 1 - results.options.alpha
    reached = (
        f"the annotators agree with each other on {percent(ceiling.estimate, 1)} "
        f"[{percent(ceiling.low, 1)}, {percent(ceiling.high, 1)}] of pairs of labels on the "
        "cases they share (the human ceiling)"
    )
    if math.isnan(ceiling.estimate):
        return f"The guarantee of {percent(promised, 1)} agreement has no human ceiling beside it."
    if promised > ceiling.estimate:
        return bad(
            f"The guarantee of {percent(promised, 1)} agreement with gold is above what "
            f"annotators reach: {reached}."
        )
    return f"The guarantee of {percent(promised, 1)} agreement with gold is within what " + (
        f"annotators reach: {reached}."
    )


def escalation_sections(
    results: EscalationResults, ceiling: Interval | None = None
) -> list[Section]:
    """`ceiling`: the annotators' agreement with each other, where the cases carry annotators."""
    bullets = [
        _no_threshold(s.judges[0].name, s.cascade.stages[0].calibration)
        for s in results.alone
        if not s.decided
    ]
    bullets += [f"No graded score, so no threshold: {line}." for line in results.ungraded]
    bullets += results.notes
    if not results.graded:
        bullets.insert(0, "No candidate has a graded score: nothing can decide alone.")
    if ceiling is not None:
        bullets.insert(0, ceiling_line(results, ceiling))
    tables = [_alone_table(results)] if results.alone else []
    tables += [_cascade_table(results)] if results.cascades else []
    return [
        Section(
            title=TITLE,
            key="escalation",
            lines=_lines(results),
            bullets=bullets,
            tables=tables,
            plot=lambda: plots.coverage(results),
        )
    ]
