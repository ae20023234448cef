"""The annotators measured beside scripted judges on the contested set's own labels: figures
known by construction (a judge that copies an annotator, the annotators' majority, gold, one
that always fails), and fewer annotators than a figure needs said, not crashed on."""

import math
from itertools import combinations

import numpy as np
import pandas as pd
import pytest

from farejudge.comparison.cases import per_case
from farejudge.comparison.humans.results import (
    HumanResults,
    epsilon_option,
    human_results,
    logged_annotations,
)
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.contested_judges import (
    ANNOTATIONS,
    CASES,
    GOLD,
    JUDGES,
    NAMES,
    SAID,
    results_of,
)
from tests.support.frame_rows import row


@pytest.fixture(scope="module")
def results() -> HumanResults:
    return results_of(JUDGES)


def test_the_ceiling_is_the_annotators_agreement_over_pairs(results: HumanResults) -> None:
    pairs = [(c, a, b) for c in SAID for a, b in combinations(NAMES, 2)]
    agreed = sum(SAID[c][a] == SAID[c][b] for c, a, b in pairs)
    assert results.cases == len(CASES) == 55
    assert results.annotators == NAMES and results.kinds == ["model"]
    assert results.ceiling.estimate == pytest.approx(agreed / len(pairs))
    assert results.ceiling.low <= results.ceiling.estimate <= results.ceiling.high
    assert results.ceiling.estimate < 1, "the contested set was written to be arguable"


def test_a_judge_that_copies_an_annotator_agrees_with_itself_and_as_it_does_with_the_rest(
    results: HumanResults,
) -> None:
    (copy,) = [f for f in results.candidates if f.model == "copies-a"]
    with_rest = sum(SAID[c]["agent-a"] == SAID[c][b] for c in SAID for b in NAMES[1:])
    assert copy.agreement.estimate == pytest.approx((55 + with_rest) / (3 * 55))


def test_the_majority_can_replace_an_annotator_and_a_failing_judge_cannot(
    results: HumanResults,
) -> None:
    by_model = {f.model: f for f in results.candidates}
    majority, fails = by_model["majority"], by_model["fails"]
    # Left out, an annotator never aligns better with the other two than their majority does.
    assert majority.alt_test.advantage_probability == 1.0
    assert majority.alt_test.winning_rate == 1.0 and majority.can_replace
    assert [t.items for t in majority.alt_test.tests] == [55, 55, 55]
    assert fails.alt_test.winning_rate == 0.0 and not fails.can_replace
    assert fails.agreement.estimate == 0 == fails.response_set_agreement.estimate
    assert fails.expected_agreement == 0


def test_soft_and_response_set_figures_against_the_labels(results: HumanResults) -> None:
    by_model = {f.model: f for f in results.candidates}
    model = results.dawid_skene
    assert model is not None
    soft = model.posterior
    assert by_model["grounded"].expected_agreement == pytest.approx(float(np.mean(1 - soft)))
    assert by_model["grounded"].brier == pytest.approx(float(np.mean(soft**2)))
    defensible = [
        "grounded" in (a.response_set or ["ungrounded" if not a.grounded else "grounded"])
        for c in CASES
        for a in c.annotations
        if a.role == "annotator"
    ]
    assert by_model["grounded"].response_set_agreement.estimate == pytest.approx(
        sum(defensible) / len(defensible)
    )
    # A verdict an annotator gave is in their set: the sets agree at least as often.
    for figures in results.candidates:
        assert figures.response_set_agreement.estimate >= figures.agreement.estimate


def test_the_rankings_put_gold_first_on_forced_choice_and_failure_last(
    results: HumanResults,
) -> None:
    rankings = results.rankings
    assert rankings is not None
    assert rankings.forced[0] == "v1 with gold"
    for order in (rankings.forced, rankings.soft, rankings.response_sets):
        assert sorted(order) == sorted(f.name for f in results.candidates)
        assert order[-1] == "v1 with fails"


def test_one_annotator_is_said_with_how_many_more_and_nothing_is_computed() -> None:
    alone = {c: [a for a in found if a.annotator == "agent-a"] for c, found in ANNOTATIONS.items()}
    results = results_of({"gold": dict(GOLD)}, alone)
    assert results.candidates == [] and math.isnan(results.ceiling.estimate)
    assert results.shortfall == (
        "1 annotator on these cases: the human ceiling needs 2 annotators on a case (1 more), "
        "the alternative annotator test 3 (2 more)"
    )


def test_two_annotators_give_a_ceiling_but_the_test_names_the_third_it_needs() -> None:
    two = {c: [a for a in found if a.annotator in NAMES[:2]] for c, found in ANNOTATIONS.items()}
    results = results_of({"majority": JUDGES["majority"]}, two)
    (figures,) = results.candidates
    assert results.shortfall is None and not math.isnan(results.ceiling.estimate)
    assert [str(s) for s in figures.alt_test.shortfalls] == [
        "2 annotators, the test needs 3: 1 more"
    ]
    assert not figures.can_replace


def test_the_gold_set_has_no_annotators_and_no_section() -> None:
    frame = per_case(pd.DataFrame([row("case-1", 1, 1)]))
    assert human_results(frame, [], {}, 0.2, Resampling()) is None


@pytest.mark.parametrize(("text", "value"), [("expert", 0.2), ("crowd", 0.1), ("0.12", 0.12)])
def test_epsilon_by_kind_or_number(text: str, value: float) -> None:
    assert epsilon_option(text) == value


@pytest.mark.parametrize("text", ["experts", "0", "1.5", "nan"])
def test_an_epsilon_that_is_neither_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ValueError, match=f"--epsilon {text}"):
        epsilon_option(text)


def test_the_annotators_are_read_back_from_the_samples_metadata() -> None:
    case = CASES[0].id
    logged = [a.model_dump() for a in ANNOTATIONS[case]]
    samples = pd.DataFrame(
        {
            "case": [case, case, "gold-1", "big-1"],
            "annotations": [logged, logged, None, "Key removed from summary (> 1k)"],
        }
    )
    assert logged_annotations(samples) == {case: ANNOTATIONS[case]}
    assert logged_annotations(pd.DataFrame({"case": ["gold-1"]})) == {}
