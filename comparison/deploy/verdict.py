"""The deploy decision's answer in words: the pick, the runner-up and their test, or why there is
none. The report's section shows it, and decision.json's `summary` holds it; the constraints'
flags and what the latency figures measure are named here for both.
"""

import math

from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.comparison.deploy.pick import PickTest
from farejudge.comparison.escalation.sections import percent
from farejudge.shared.document.model import interval

QUALITY_NAMES = {"balanced_accuracy": "balanced accuracy", "recall": "recall"}
FLAGS = {
    "max_cost_per_1k": "--max-cost-per-1k",
    "min_recall": "--min-recall",
    "max_failure_rate": "--max-failure-rate",
    "max_p95_latency": "--max-p95-latency",
    "min_agreement": "--min-agreement",
    "max_attack_success": "--max-attack-success",
    "require_alt_test": "--require-alt-test",
}
UNKNOWN_COST = "cost unknown"
NOTHING_TO_CHOOSE = "there is nothing to choose between"
LATENCY_MEASURED = (
    "Latency per judge call: each sample's working time as Inspect records it, which for "
    "this task is its one judge call (Inspect's retry back-off and waits for a connection "
    "slot left out) plus its scoring, a few milliseconds; a panel's is its slowest "
    "member's on each case and epoch."
)


def dollars(x: float) -> str:
    return f"${x:,.4f}"


def cost_of(c: Candidate) -> str:
    found = c.estimate("cost_per_1k")
    return UNKNOWN_COST if math.isnan(found) else dollars(found)


def constraint_text(name: str, bound: float) -> str:
    return f"{FLAGS[name]} {bound:g}"


def quality_name(d: Deployment) -> str:
    return QUALITY_NAMES[d.quality]


def figure_text(d: Deployment, c: Candidate) -> str:
    return f"{quality_name(d)} {interval(c.figures[d.quality])}"


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
            f"{dollars(preferred.estimate('cost_per_1k'))} against "
            f"{dollars((pick if d.prefer_runner_up else runner_up).estimate('cost_per_1k'))} "
            "per 1,000 answers"
        )
        return f"so prefer the cheaper of the two, {which} ({costs})"
    if d.preference == "same cost":
        return (
            f"and the two cost the same ({dollars(pick.estimate('cost_per_1k'))} per 1,000 "
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


def joined(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def verdict_lines(d: Deployment) -> list[str]:
    """The answer, in a few sentences: the pick, the runner-up and the test, or why none."""
    pick, runner_up, test = d.pick, d.runner_up, d.test
    total = len(d.candidates)
    if not d.candidates:
        return ["No candidate: no run has a scored case."]
    if pick is None:
        names = joined([constraint_text(n, d.constraints.given()[n]) for n in d.excluded_most])
        if not names:
            return ["No candidate has a defined quality: nothing can be picked."]
        return [
            f"No candidate meets the constraints: {names} excluded the most "
            f"({d.excluded_count} of {total} candidates)."
        ]
    if total == 1:
        return [
            f"Deploy {pick.name}, the only candidate: {NOTHING_TO_CHOOSE} ({figure_text(d, pick)})."
        ]
    among = (
        f"of the {len(d.ranked)} candidates (of {total}) that meet the constraints"
        if d.constraints.given()
        else f"of the {total} candidates"
    )
    cheapest = d.constraints.min_agreement is not None
    if cheapest:
        lines = [
            f"Deploy {pick.name}: the cheapest, {cost_of(pick)} per 1,000 "
            f"answers, {among}, an agreement with gold of at least "
            f"{percent(d.constraints.min_agreement or 0, 1)} guaranteed at δ = "
            f"{d.constraints.delta:g} among them ({figure_text(d, pick)})."
        ]
    else:
        lines = [
            f"Deploy {pick.name}: the best {quality_name(d)}, {interval(pick.figures[d.quality])}, "
            f"{among}."
        ]
    if runner_up is None or test is None:
        return [*lines, "No other candidate meets the constraints: there is no runner-up."]
    next_one = f"{cost_of(runner_up)} per 1,000 answers, " if cheapest else ""
    lines.append(f"Runner-up: {runner_up.name}, {next_one}{figure_text(d, runner_up)}.")
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
