"""Selective candidates in the deploy decision, on hand-made runs: they join the frontier with
their reviews priced, --min-agreement picks the cheapest candidate that guarantees it, and
decision.json carries them only where asked.

Two judges on 60 cases (the even ones gold ungrounded):

- `sure`, graded by logprobs, $0.001 a call: 0.99 sure and right on x-0..x-39; 0.6 sure on
  x-40..x-59, wrong on the odd ones among them (10 wrong). Alone at alpha 0.1, delta 0.1 it
  decides the 40 at 0.975 (p = 0.9^40 = 0.015), and not the 60 at 0.6 (10 wrong:
  P(Bin(60, 0.1) <= 10) = 0.96): a person reviews the other 20.
- `plain`, its verdict alone, $0.01 a call: wrong on x-0 and x-1.
"""

import json
import math

import pytest
from scipy.stats import beta, binom

from farejudge.comparison.deploy.candidates import DeployOptions
from farejudge.comparison.deploy.decision import decision_json
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.deploy.sections import deploy_sections
from farejudge.comparison.escalation.results import EscalationOptions
from farejudge.comparison.report.build import Report, build_report
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs
from tests.support.json_values import keys

SURE = "v3 with sure → a person"


def _rows() -> list[dict[str, object]]:
    rows = []
    for k in range(60):
        gold = k % 2 == 0
        right = k < 40 or k % 2 == 0
        judged = gold if right else not gold
        sure = 0.99 if k < 40 else 0.6
        p = sure if judged else 1 - sure
        rows.append(row(f"x-{k}", gold, judged, "v3", model="sure", p_ungrounded=p,
                        graded_source="logprobs", cost=0.001, working_time=0.5))  # fmt: skip
        rows.append(row(f"x-{k}", gold, gold != (k < 2), "v3", model="plain", cost=0.01,
                        working_time=1.0))  # fmt: skip
    return rows


def _report(alpha: float = 0.1, least: float | None = 0.9, human: float | None = 1.0) -> Report:
    constraints = Constraints(min_agreement=least, delta=0.1 if least else None)
    return build_report(
        runs(_rows()),
        Resampling(100),
        deploy=DeployOptions(constraints=constraints),
        escalation=EscalationOptions(
            alpha=alpha, delta=0.1, min_agreement=least, human_cost_per_review=human
        ),
    )


def test_a_selective_candidate_joins_with_its_reviews_priced() -> None:
    assert 0.9**40 <= 0.1 < binom.cdf(10, 60, 0.1)
    d = _report().deployment
    names = [c.name for c in d.candidates]
    assert names == ["v3 with plain", "v3 with sure", SURE]
    selective = d.candidates[2]
    # $0.001 a call on all 60, $1 a review on 20: per 1,000 answers 1 + 333.33.
    assert selective.estimate("cost_per_1k") == pytest.approx(1 + 1000 * 20 / 60)
    assert selective.estimate("balanced_accuracy") == 1.0  # a person's label is gold's
    assert selective.guaranteed_agreement == pytest.approx(0.9)
    assert selective.selective is not None and selective.selective.cascade.thresholds == (0.975,)


def test_a_judge_alone_guarantees_what_its_exact_bound_says() -> None:
    d = _report().deployment
    plain = d.candidates[0]
    # 2 wrong of 60: one minus the one-sided 90 % Clopper-Pearson bound.
    assert plain.guaranteed_agreement == pytest.approx(1 - beta.ppf(0.9, 3, 58), rel=1e-9)
    assert plain.guaranteed_agreement is not None and plain.guaranteed_agreement > 0.9
    assert plain.screened.meets
    # sure alone, at its cut-off, is wrong on too many: it fails --min-agreement.
    assert d.candidates[1].screened.failed == ["min_agreement"]


@pytest.mark.parametrize(
    ("human", "pick", "runner_up"),
    [(1.0, "v3 with plain", SURE), (0.01, SURE, "v3 with plain")],
)
def test_the_pick_is_the_cheapest_candidate_that_guarantees_the_agreement(
    human: float, pick: str, runner_up: str
) -> None:
    """A review at $1: plain ($10 per 1,000) is cheaper than sure with people ($334.33); at
    $0.01: sure with people costs $1 + $3.33, and is the pick."""
    d = _report(human=human).deployment
    assert d.pick is not None and d.pick.name == pick
    assert d.runner_up is not None and d.runner_up.name == runner_up
    (section,) = deploy_sections(d)
    assert section.lines[0].startswith(f"Deploy {pick}: the cheapest, $")
    assert "an agreement with gold of at least 90.0 % guaranteed at δ = 0.1" in section.lines[0]


def test_without_min_agreement_the_pick_is_the_best_quality() -> None:
    d = _report(least=None).deployment
    assert d.pick is not None and d.pick.name == SURE


def test_a_candidate_whose_judges_decide_nothing_is_no_candidate() -> None:
    # At alpha 0.01, 40 right of 40 is no proof: 0.99^40 = 0.67 > 0.1.
    report = _report(alpha=0.01, least=None)
    assert report.escalation is not None and not report.escalation.alone[0].decided
    assert [c.name for c in report.deployment.candidates] == ["v3 with plain", "v3 with sure"]


def test_with_no_review_price_a_cost_with_reviews_is_unknown() -> None:
    d = _report(least=None, human=None).deployment
    assert math.isnan(d.candidates[2].estimate("cost_per_1k"))


NEW_KEYS = {"stages", "guaranteed_agreement", "selective", "min_agreement", "delta", "escalation"}


def test_decision_json_has_selective_judging_only_where_asked() -> None:
    plain = build_report(runs(_rows()), Resampling(100))
    without = json.loads(decision_json(plain.deployment))
    assert not keys(without) & NEW_KEYS
    with_it = json.loads(decision_json(_report().deployment))
    assert keys(with_it) >= NEW_KEYS
    assert with_it["constraints"]["min_agreement"] == 0.9
    assert with_it["escalation"]["alone"][0]["stages"][0]["threshold"] == 0.975
    sure = with_it["frontier"][2]
    assert sure["operating_point"] == "confidence threshold"
    assert sure["stages"] == [{"version": "v3", "model": "sure", "threshold": 0.975}]
    assert sure["selective"]["coverage"]["estimate"] == pytest.approx(40 / 60)
    assert with_it["frontier"][0]["stages"] is None


def test_a_minimum_agreement_is_met_exactly_as_given() -> None:
    # alpha is 1 - 0.93, which binary floating point makes 0.06999999999999995; the 40 sure
    # verdicts pass at it (0.93^40 = 0.055 <= 0.1).
    d = _report(alpha=1 - 0.93, least=0.93, human=0.01).deployment
    assert d.candidates[2].guaranteed_agreement == 0.93
    assert d.candidates[2].screened.meets
