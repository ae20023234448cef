"""The deploy decision's section, "Which judge to deploy": the answer in words, and its table.

The pick, the runner-up and their test, the method, the notes, the frontier table and its
plot.
"""

import math

from farejudge.comparison.deploy import plots
from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.verdict import (
    LATENCY_MEASURED,
    UNKNOWN_COST,
    constraint_text,
    dollars,
    quality_name,
    verdict_lines,
)
from farejudge.comparison.escalation.results import EscalationOptions
from farejudge.comparison.escalation.sections import percent, route_text, shares_text
from farejudge.comparison.stats.intervals import Interval
from farejudge.shared.document.model import Section, Table, bad, good, interval

TITLE = "Which judge to deploy"
NOISE = 0.5
"""A candidate on the frontier in fewer than this share of the resamples is there by noise."""


def _cost(i: Interval) -> str:
    if math.isnan(i.estimate):
        return UNKNOWN_COST
    if math.isnan(i.low):
        return f"{dollars(i.estimate)} [n/a]"
    return f"{dollars(i.estimate)} [{dollars(i.low)}, {dollars(i.high)}]"


def _seconds(i: Interval) -> str:
    if math.isnan(i.estimate):
        return "unknown"
    if math.isnan(i.low):
        return f"{i.estimate:.3f} [n/a]"
    return f"{i.estimate:.3f} [{i.low:.3f}, {i.high:.3f}]"


def _flip(c: Candidate) -> str:
    if c.selective:
        return "n/a (selective)"
    if c.members:
        return "n/a (a panel)"
    found = c.figures["flip_rate"]
    return "n/a (one epoch)" if math.isnan(found.estimate) else interval(found)


def _share(share: float) -> str:
    return "n/a" if math.isnan(share) else f"{share * 100:.0f} %"


def _constraints_cell(d: Deployment, c: Candidate) -> str:
    given = d.constraints.given()
    if not given:
        return "none given"
    failed = [constraint_text(n, given[n]) for n in c.screened.failed]
    unchecked = [constraint_text(n, given[n]) for n in c.screened.unchecked]
    said = f"fails {', '.join(failed)}" if failed else "meets"
    if unchecked:
        said += f" (not checked: {', '.join(unchecked)})"
    return bad(said) if failed else said


def _role(d: Deployment, i: int) -> str:
    roles = []
    if d.ranked and i == d.ranked[0]:
        roles.append("pick")
    if len(d.ranked) > 1 and i == d.ranked[1]:
        roles.append("runner-up")
    if d.preferred is d.candidates[i] and d.prefer_runner_up:
        roles.append("preferred")
    text = ", ".join(roles) or "—"
    return good(text) if roles else text


def _operating_point(c: Candidate) -> str:
    if c.selective:
        return route_text(c.selective)
    return "verdict" if c.threshold is None else f"P(ungrounded) ≥ {c.threshold:.3g}"


def _selective_cells(c: Candidate) -> list[str]:
    """The agreement it guarantees, and who decides what: with selective judging only."""
    g = c.guaranteed_agreement
    guaranteed = "none" if g is None or math.isnan(g) else f"≥ {percent(g, 1)}"
    decided = shares_text(c.selective) if c.selective else "the judge 100 %"
    return [guaranteed, decided]


def _frontier_table(d: Deployment) -> Table:
    selective = d.escalation is not None
    rows = [
        [
            c.name,
            _role(d, i),
            str(c.cases),
            _operating_point(c),
            interval(c.figures["balanced_accuracy"]),
            interval(c.figures["recall"]),
            interval(c.figures["precision"]),
            interval(c.figures["failure_rate"]),
            *(_selective_cells(c) if selective else []),
            _cost(c.figures["cost_per_1k"]),
            _seconds(c.figures["latency_p50"]),
            _seconds(c.figures["latency_p95"]),
            _flip(c),
            "yes" if c.on_frontier else "no",
            _share(c.frontier_share),
            _constraints_cell(d, c),
        ]
        for i, c in enumerate(d.candidates)
    ]
    columns = ["Candidate", "Role", "Cases", "Operating point", "Balanced acc.", "Recall"]
    columns += ["Precision", "Judge failure rate"]
    columns += ["Guaranteed agreement", "Decided alone"] if selective else []
    columns += ["Cost per 1,000 answers"]
    columns += ["Latency p50 (s)", "Latency p95 (s)", "Epoch flip rate", "On the frontier"]
    columns += ["Frontier share", "Constraints"]
    return Table(
        columns, rows, caption=f"The candidates, with the frontier on (cost, {quality_name(d)})"
    )


def _unknown(d: Deployment, figure: str) -> list[Candidate]:
    return [c for c in d.candidates if math.isnan(c.estimate(figure))]


def _notes(d: Deployment) -> list[str]:
    notes: list[str] = []
    if d.suite_cases:
        notes.append(
            "The candidates' figures stand on the gold cases as written: the suite's "
            f"{d.suite_cases:,} derived and attacked cases are left out of them and of any "
            "calibrated threshold. They test robustness: the relations, the attack success, "
            "the gate and --max-attack-success read them."
        )
    given = d.constraints.given()
    unpriced = _unknown(d, "cost_per_1k")
    if unpriced:
        cost = given.get("max_cost_per_1k")
        check = (
            f"; {constraint_text('max_cost_per_1k', cost)} could not be checked on them and "
            "excludes none of them"
            if cost is not None
            else ""
        )
        whom = (
            "for every candidate: no log records a cost"
            if len(unpriced) == len(d.candidates)
            else f"for {', '.join(c.name for c in unpriced)}: their logs record no cost"
        )
        notes.append(
            f"Cost unknown {whom} (give judge-matrix --model-cost-config a price file){check}. "
            "A candidate whose cost is unknown is placed on the frontier by quality alone, "
            "and the pick is made on the other constraints."
        )
    untimed = _unknown(d, "latency_p95")
    if untimed:
        latency = given.get("max_p95_latency")
        check = (
            f"; {constraint_text('max_p95_latency', latency)} could not be checked on them"
            if latency is not None
            else ""
        )
        notes.append(
            f"Latency unknown for {', '.join(c.name for c in untimed)}: their logs record "
            f"no working time{check}."
        )
    noisy = [c for c in d.candidates if c.on_frontier and c.frontier_share < NOISE]
    if noisy:
        listed = ", ".join(f"{c.name} ({_share(c.frontier_share)})" for c in noisy)
        notes.append(
            f"On the frontier at the point estimates, but in fewer than half the resamples: "
            f"{listed}: that place is within the noise."
        )
    if d.pick is None and d.candidates:
        counts = {n: sum(n in c.screened.failed for c in d.candidates) for n in given}
        notes.append(
            "Candidates each constraint excluded: "
            + ", ".join(f"{constraint_text(n, given[n])}: {k}" for n, k in counts.items())
            + "."
        )
    if d.usable < d.resampling.resamples and d.candidates:
        notes.append(
            f"Frontier shares are over the {d.usable} of {d.resampling.resamples} resamples "
            f"in which every candidate's {quality_name(d)} is defined."
        )
    return notes


def _selective_method(o: EscalationOptions) -> str:
    """How selective candidates and cascades are weighed beside the others."""
    human = (
        f"${o.human_cost_per_review:,.4f} a review (--human-cost-per-review)"
        if o.human_cost_per_review is not None
        else "an unknown price (no --human-cost-per-review), so its cost is unknown"
    )
    pick = (
        f" --min-agreement is met where the guaranteed agreement, at δ = {o.delta:g}, is at "
        "least it; the pick is then the cheapest candidate that meets every constraint, the "
        "runner-up the next cheapest."
        if o.min_agreement is not None
        else ""
    )
    return (
        f"Selective judging (α = {o.alpha:g}, δ = {o.delta:g}): each graded candidate alone, "
        "and each cascade, whose judges decide some answers alone with the guarantee, is a "
        "candidate too, named with where its answers go (→ a person). Its verdict on an "
        "answer is its deciding judge's, or, escalated, a person's, which is gold's; its cost "
        "per 1,000 answers counts each judge's calls on the answers that reach it and a "
        f"person's review of each answer no judge decides, at {human}. Guaranteed agreement: "
        "with probability at least 1 − δ, a selective candidate's on what its judges decide "
        "(1 − α, Escalation with a guarantee below); a candidate deciding every answer alone, "
        "one minus the exact one-sided (Clopper-Pearson) bound on its error rate, a judge "
        f"failure an error.{pick}"
    )


def _method(d: Deployment) -> list[str]:
    target = f"{d.target_recall * 100:.0f} %"
    given = d.constraints.given()
    constraints = (
        ", ".join(constraint_text(n, v) for n, v in given.items()) if given else "none given"
    )
    selective = [_selective_method(d.escalation.options)] if d.escalation else []
    rule = (
        "is the cheapest of the candidates that meet every constraint (ties: the better quality)"
        if d.constraints.min_agreement is not None
        else "has the best quality among the candidates that meet every constraint (ties: the "
        "cheaper)"
    )
    return [
        f"Quality: {quality_name(d)} (judge-compare --quality), at each candidate's operating "
        "point: its verdict, or, for a run whose graded score comes from logprobs, the cut-off "
        f"on P(ungrounded) that catches {target} of the ungrounded answers (--target-recall). "
        "Constraints, at the point estimates: "
        f"{constraints}. The pick {rule}; it is tested against the runner-up on the cases both "
        "judged with identical content: by exact McNemar on their verdicts, or by DeLong on "
        "their graded scores where both are cut off on one (the other test beside it).",
        "Cost per 1,000 answers: the mean recorded cost of one call (ModelUsage.total_cost, "
        "which Inspect fills from judge-matrix --model-cost-config) times 1,000; a panel's is "
        f"the sum of its members'. {LATENCY_MEASURED} Epoch flip rate: the share of cases "
        "whose verdict differs between epochs.",
        "Intervals are 95 %: Wilson score for recall, precision and the failure and flip "
        "rates, as elsewhere in the report; percentile bootstrap over cases "
        f"({d.resampling.resamples} resamples, seed {d.resampling.seed}) for balanced accuracy, "
        "cost and latency, "
        "the candidates resampled together. The frontier: the candidates that no other is at "
        "least as good as on both cost and quality, and better on one. The frontier share: "
        f"the share of the resamples in which a candidate is on the frontier of that "
        f"resample's cost and {quality_name(d)}, so that a candidate on it by noise shows a low "
        "share.",
        *selective,
    ]


def deploy_sections(deployment: Deployment) -> list[Section]:
    return [
        Section(
            title=TITLE,
            key="deploy",
            lines=[*verdict_lines(deployment), *_method(deployment)],
            bullets=_notes(deployment),
            tables=[_frontier_table(deployment)] if deployment.candidates else [],
            plot=lambda: plots.frontier(deployment),
        )
    ]
