"""The annotators' section, "The annotators beside the judges": the human ceiling, each
candidate's agreement and alternative annotator test, its soft and response-set figures, and
whether the ranking changes with the gold it is ranked on."""

import math

from farejudge.comparison.humans.results import HumanFigures, HumanResults, Rankings
from farejudge.raters import AltTest
from farejudge.shared.document.model import Section, Table, bad, good, interval, number

TITLE = "The annotators beside the judges"
KEY = "humans"


def alt_test_text(test: AltTest) -> str:
    """A candidate's test in a cell: ω, rho, and what it may be said to do."""
    if not test.tests:
        return "not tested: " + "; ".join(str(s) for s in test.shortfalls)
    said = f"ω {number(test.winning_rate)}, rho {number(test.advantage_probability)}"
    if test.passes:
        return good(f"{said}: can replace an annotator")
    if test.shortfalls:
        return bad(f"{said}: no verdict, " + "; ".join(str(s) for s in test.shortfalls))
    return bad(f"{said}: cannot replace an annotator")


def _per_annotator(figures: HumanFigures, names: list[str]) -> str:
    """Each annotator's test after the correction: `agent-a won (p 0.001)`."""
    return "; ".join(
        f"{names[t.annotator]} {'won' if t.judge_wins else 'lost'} "
        f"(p {t.adjusted_p_value:.3g}, {t.test})"
        for t in figures.alt_test.tests
    )


def ranking_line(rankings: Rankings) -> str:
    """Whether the order of the candidates, and the first of them, changes with the gold."""
    if not rankings.order_changes:
        return good(
            f"The ranking is the same on forced-choice gold, soft gold and response sets: "
            f"{rankings.forced[0]} first."
        )
    firsts = (
        f"the first changes: {rankings.forced[0]} on forced-choice gold, {rankings.soft[0]} on "
        f"soft gold, {rankings.response_sets[0]} on response sets"
        if rankings.first_changes
        else f"{rankings.forced[0]} stays first"
    )
    return bad(f"The ranking changes with the gold it is ranked on; {firsts}.")


def section(results: HumanResults) -> Section:
    kinds = ", ".join(results.kinds)
    lines = [
        f"{len(results.annotators)} annotators ({', '.join(results.annotators)}; kind: {kinds}) "
        f"on {results.cases} cases judged by every candidate. Agreement is the share of "
        "(case, annotator) pairs that give the same verdict, with a 95 % interval over case "
        "resamples; the annotators' own agreement, over pairs of annotators, is the human "
        "ceiling. Adjudicators' labels are left out: they labelled only the disagreements.",
    ]
    if results.shortfall is not None:
        return Section(TITLE, KEY, lines=[*lines, bad(results.shortfall + ".")])
    lines.append(
        f"Human ceiling: the annotators agree with each other on "
        f"{interval(results.ceiling)} of pairs."
    )
    lines.append(
        f"The alternative annotator test (Calderon et al., 2025) at ε = {results.epsilon:g} "
        "(--epsilon), level 0.05 after Benjamini-Yekutieli: a candidate can replace an "
        "annotator where it wins against at least half of them (ω ≥ 0.5)."
    )
    if results.rankings is not None:
        lines.append(ranking_line(results.rankings))
    ceiling = results.ceiling.estimate
    rows = [
        [
            f.name,
            interval(f.agreement),
            _against(f.agreement.estimate, ceiling),
            alt_test_text(f.alt_test),
            number(f.expected_agreement),
            number(f.brier),
            interval(f.response_set_agreement),
            number(f.forced_accuracy),
        ]
        for f in results.candidates
    ]
    tests = [[f.name, _per_annotator(f, results.annotators)] for f in results.candidates]
    model = results.dawid_skene
    assert model is not None, "figures are computed only with a soft label"
    soft = [
        [name, number(float(se)), number(float(sp))]
        for name, se, sp in zip(
            results.annotators, model.sensitivity, model.specificity, strict=True
        )
    ]
    return Section(
        TITLE,
        KEY,
        lines=lines,
        tables=[
            Table(
                [
                    "candidate",
                    "agreement with the annotators",
                    "against the ceiling",
                    "alternative annotator test",
                    "expected agreement (soft gold)",
                    "Brier (soft gold)",
                    "agreement with response sets",
                    "accuracy (forced-choice gold)",
                ],
                rows,
                caption="Each candidate against the annotators on the same cases.",
            ),
            Table(
                ["candidate", "each annotator's test (adjusted p)"],
                tests,
                caption="The alternative annotator test, one annotator left out at a time.",
            ),
            Table(
                ["annotator", "sensitivity", "specificity"],
                soft,
                caption=(
                    f"Dawid-Skene over the annotators: prevalence of ungrounded "
                    f"{number(model.prevalence)}; the soft label is each case's P(ungrounded)."
                ),
            ),
        ],
    )


def _against(agreement: float, ceiling: float) -> str:
    if math.isnan(agreement) or math.isnan(ceiling):
        return "n/a"
    gap = agreement - ceiling
    return f"{number(gap, signed=True)} ({'at or above' if gap >= 0 else 'below'})"
