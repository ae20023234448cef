"""The deploy decision's section, "Which judge to deploy": the answer in words, and its table.

The pick, the runner-up and their test, the method, the notes, the frontier table and its
plot.
"""

import math

from farejudge.comparison.deploy import plots
from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.pick import PickTest
from farejudge.comparison.document.model import Section, Table, bad, good, interval
from farejudge.comparison.escalation.results import EscalationOptions
from farejudge.comparison.escalation.sections import percent, route_text, shares_text
from farejudge.comparison.stats.intervals import Interval

TITLE = "Which judge to deploy"
NOISE = 0.5
"""A candidate on the frontier in fewer than this share of the resamples is there by noise."""

QUALITY_NAMES = {"balanced_accuracy": "balanced accuracy", "recall": "recall"}
FLAGS = {
    "max_cost_per_1k": "--max-cost-per-1k",
    "min_recall": "--min-recall",
    "max_failure_rate": "--max-failure-rate",
    "max_p95_latency": "--max-p95-latency",
    "min_agreement": "--min-agreement",
}
UNKNOWN_COST = "cost unknown"
NOTHING_TO_CHOOSE = "there is nothing to choose between"
LATENCY_MEASURED = (
    "Latency per judge call: each sample's working time as Inspect records it, which for "
    "this task is its one judge call (Inspect's retry back-off and waits for a connection "
    "slot left out) plus its scoring, a few milliseconds; a panel's is its slowest "
    "member's on each case and epoch."
)


def _dollars(x: float) -> str:
    return f"${x:,.4f}"


def _cost(i: Interval) -> str:
    if math.isnan(i.estimate):
        return UNKNOWN_COST
    if math.isnan(i.low):
        return f"{_dollars(i.estimate)} [n/a]"
    return f"{_dollars(i.estimate)} [{_dollars(i.low)}, {_dollars(i.high)}]"


def _cost_of(c: Candidate) -> str:
    found = c.estimate("cost_per_1k")
    return UNKNOWN_COST if math.isnan(found) else _dollars(found)


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


def constraint_text(name: str, bound: float) -> str:
    return f"{FLAGS[name]} {bound:g}"


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
        columns, rows, caption=f"The candidates, with the frontier on (cost, {_quality(d)})"
    )


def _quality(d: Deployment) -> str:
    return QUALITY_NAMES[d.quality]


def _figure(d: Deployment, c: Candidate) -> str:
    return f"{_quality(d)} {interval(c.figures[d.quality])}"


def _test_words(t: PickTest) -> str:
    """The deciding test first, the other beside it."""
    mcnemar = (
        f"exact McNemar p = {t.mcnemar_p:.3g} on {t.cases} paired cases: {t.pick_only} right "
        f"only for the pick, {t.runner_up_only} only for the runner-up"
    )
    if t.delong is None:
        return mcnemar
    delong = (
        f"DeLong p = {t.delong.p_value:.3g} on {t.graded_cases} paired cases with a graded "
        f"score in both, AUC {t.delong.auc_after:.2f} against {t.delong.auc_before:.2f}"
    )
    if t.by_score:
        return f"{delong}; on the verdicts, {mcnemar}"
    return f"{mcnemar}; on the graded scores, {delong}"


def _preference(d: Deployment, pick: Candidate, runner_up: Candidate) -> str:
    preferred = runner_up if d.prefer_runner_up else pick
    which = f"{preferred.name}" + ("" if d.prefer_runner_up else ", the pick itself")
    if d.preference == "cheaper":
        costs = (
            f"{_dollars(preferred.estimate('cost_per_1k'))} against "
            f"{_dollars((pick if d.prefer_runner_up else runner_up).estimate('cost_per_1k'))} "
            "per 1,000 answers"
        )
        return f"so prefer the cheaper of the two, {which} ({costs})"
    if d.preference == "same cost":
        return (
            f"and the two cost the same ({_dollars(pick.estimate('cost_per_1k'))} per 1,000 "
            "answers): keep the pick"
        )
    if d.preference == "faster":
        other = pick if d.prefer_runner_up else runner_up
        return (
            f"and their cost is unknown, so prefer the faster of the two, {which} (p95 "
            f"{preferred.estimate('latency_p95'):.3f} s against "
            f"{other.estimate('latency_p95'):.3f} s a call)"
        )
    return "and neither their cost nor their latency is known: keep the pick"


def _and(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def verdict_lines(d: Deployment) -> list[str]:
    """The answer, in a few sentences: the pick, the runner-up and the test, or why none."""
    pick, runner_up, test = d.pick, d.runner_up, d.test
    total = len(d.candidates)
    if not d.candidates:
        return ["No candidate: no run has a scored case."]
    if pick is None:
        names = _and([constraint_text(n, d.constraints.given()[n]) for n in d.excluded_most])
        if not names:
            return ["No candidate has a defined quality: nothing can be picked."]
        return [
            f"No candidate meets the constraints: {names} excluded the most "
            f"({d.excluded_count} of {total} candidates)."
        ]
    if total == 1:
        return [
            f"Deploy {pick.name}, the only candidate: {NOTHING_TO_CHOOSE} ({_figure(d, pick)})."
        ]
    among = (
        f"of the {len(d.ranked)} candidates (of {total}) that meet the constraints"
        if d.constraints.given()
        else f"of the {total} candidates"
    )
    cheapest = d.constraints.min_agreement is not None
    if cheapest:
        lines = [
            f"Deploy {pick.name}: the cheapest, {_cost_of(pick)} per 1,000 "
            f"answers, {among}, an agreement with gold of at least "
            f"{percent(d.constraints.min_agreement or 0, 1)} guaranteed at δ = "
            f"{d.constraints.delta:g} among them ({_figure(d, pick)})."
        ]
    else:
        lines = [
            f"Deploy {pick.name}: the best {_quality(d)}, {interval(pick.figures[d.quality])}, "
            f"{among}."
        ]
    if runner_up is None or test is None:
        return [*lines, "No other candidate meets the constraints: there is no runner-up."]
    next_one = f"{_cost_of(runner_up)} per 1,000 answers, " if cheapest else ""
    lines.append(f"Runner-up: {runner_up.name}, {next_one}{_figure(d, runner_up)}.")
    if test.significant:
        lines.append(
            f"The pick is significantly better than the runner-up at 0.05 ({_test_words(test)})."
        )
    else:
        lines.append(
            f"The pick is not significantly better than the runner-up at 0.05 "
            f"({_test_words(test)}), {_preference(d, pick, runner_up)}."
        )
    return lines


def _unknown(d: Deployment, figure: str) -> list[Candidate]:
    return [c for c in d.candidates if math.isnan(c.estimate(figure))]


def _notes(d: Deployment) -> list[str]:
    notes: list[str] = []
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
            f"in which every candidate's {_quality(d)} is defined."
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
        f"Quality: {_quality(d)} (judge-compare --quality), at each candidate's operating "
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
        f"resample's cost and {_quality(d)}, so that a candidate on it by noise shows a low "
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
