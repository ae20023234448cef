"""The cascade: three scripted judges with known prices give the known cheapest cascade that
meets the minimum agreement, at a cost per 1,000 answers counted by hand."""

import math

import numpy as np
import pytest
from scipy.stats import binom

from farejudge.comparison.escalation.cascade import Judge, calibrate_cascade, route
from tests.support.cascades import cheapest_cascade

HUMAN = 1.00
"""A person's review of one answer."""

# 400 gold cases in four groups: easy (240), medium (100), hard (40), very hard (20).
GROUPS = np.repeat([1, 2, 3, 4], [240, 100, 40, 20])
GOLD = np.tile([0.0, 1.0], 200)
EVERY_FOURTH = np.arange(400) % 4 == 0


def _judge(name: str, price: float, confidence: np.ndarray, right: np.ndarray) -> Judge:
    return Judge(name, np.where(right, GOLD, 1 - GOLD), confidence, price)


def three_judges() -> list[Judge]:
    """Given out of order: the cascades put them in order of price.

    - A (0.001 an answer): 0.99 sure and right on the easy cases; 0.6 sure elsewhere, and right
      there only on every fourth case.
    - B (0.01): as A on the easy cases; 0.9 sure on the medium ones, wrong on 3 of those 100;
      0.6 sure on the hard and very hard, right on every fourth.
    - C (0.10): 0.99 sure and right on the easy, medium and hard cases; 0.6 sure on the very
      hard ones, right on every fourth.
    """
    unsure_right = EVERY_FOURTH
    a = _judge("A", 0.001, np.where(GROUPS == 1, 0.99, 0.6), (GROUPS == 1) | unsure_right)
    medium_wrong = np.isin(np.arange(400), [250, 290, 330])
    b_confidence = np.select([GROUPS == 1, GROUPS == 2], [0.99, 0.9], 0.6)
    b_right = (GROUPS == 1) | ((GROUPS == 2) & ~medium_wrong) | ((GROUPS > 2) & unsure_right)
    b = _judge("B", 0.01, b_confidence, b_right)
    c = _judge("C", 0.10, np.where(GROUPS < 4, 0.99, 0.6), (GROUPS < 4) | unsure_right)
    return [c, a, b]


def test_the_cheapest_cascade_at_90_percent_and_its_cost_by_hand() -> None:
    """min agreement 0.9 (alpha 0.1), delta 0.1. A → B → C, each judge at delta / 3 = 0.0333:

    - A on all 400: at 0.975 it decides the 240 easy cases, none wrong:
      p = 0.9^240 (about 1e-11), rejected; at 0.6 it would decide all 400 with 120 wrong (of
      the 160 unsure, all but every fourth): not rejected. A decides 240.
    - B on the 160 A escalated: at 0.9 it decides the 100 medium, 3 wrong:
      p = P(Bin(100, 0.1) <= 3) = 0.0078 <= 0.0333, rejected; at 0.6 (all 160, 48 wrong) not.
      B decides 100.
    - C on the 60 left: at 0.975 it decides the 40 hard, none wrong: p = 0.9^40 = 0.0148,
      rejected; at 0.6 (60, 15 wrong) not. C decides 40; 20 go to a person.
    - Per 1,000 answers: A judges all 1,000: 1,000 x 0.001 = 1.00; B the 400 that reach it
      (160 of 400): 400 x 0.01 = 4.00; C 150 (60 of 400): 150 x 0.10 = 15.00; a person 50
      (20 of 400): 50 x 1.00 = 50.00. In all 70.00.

    The others, by the same counts: B → C 10 + 15 + 50 = 75 (B decides the 340 easy and
    medium, C the 40 hard); A → C 1 + 40 + 50 = 91; C alone decides everything (15 wrong of 400,
    3.75 %): 100; A → B 1 + 4 + 150 = 155; B alone 10 + 150 = 160; A alone 1 + 400 = 401.
    """
    assert binom.cdf(3, 100, 0.1) == pytest.approx(0.0078, abs=5e-5) and 0.0078 <= 0.1 / 3
    assert 0.9**40 <= 0.1 / 3 < 0.9**30
    choice = cheapest_cascade(
        three_judges(), GOLD, min_agreement=0.9, delta=0.1, human_cost_per_review=HUMAN
    )
    print("\nmin agreement 0.9, delta 0.1, a review 1.00:")
    for cascade in choice.cascades:
        print(
            f"  {cascade.name}: {cascade.cost_per_1k:.2f} per 1,000; thresholds "
            f"{cascade.thresholds}; shares {[round(s, 3) for s in cascade.shares]}"
        )
    costs = {cascade.name: cascade.cost_per_1k for cascade in choice.cascades}
    hand = {
        "A → B → C": 1 + 4 + 15 + 50,
        "B → C": 10 + 15 + 50,
        "A → C": 1 + 40 + 50,
        "C": 100 + 0,
        "A → B": 1 + 4 + 150,
        "B": 10 + 150,
        "A": 1 + 400,
    }
    assert costs == pytest.approx(hand)
    assert list(costs) == sorted(hand, key=hand.__getitem__)
    best = choice.cheapest
    assert best is not None and best.name == "A → B → C"
    assert best.cost_per_1k == pytest.approx(70.0)
    assert best.thresholds == (0.975, 0.9, 0.975)
    assert best.shares == pytest.approx((240 / 400, 100 / 400, 40 / 400, 20 / 400))
    assert [stage.reached for stage in best.stages] == [400, 160, 60]
    assert [stage.calibration.delta for stage in best.stages] == pytest.approx([0.1 / 3] * 3)
    assert best.guaranteed_agreement == pytest.approx(0.9)
    # 3 wrong of the 380 the judges decided.
    assert best.agreement == pytest.approx(1 - 3 / 380)
    assert choice.people_only_cost_per_1k == 1000.0


def test_a_higher_minimum_agreement_changes_the_pick() -> None:
    """min agreement 0.95 (alpha 0.05): B's 3 errors in 100 no longer pass after A:
    P(Bin(100, 0.05) <= 3) = 0.258 > 0.0333, so in A → B → C it decides nothing and costs 4 for
    it: 1 + 4 + 40 + 50 = 95. A → C (delta / 2 each): A decides 240 (0.95^240), C on the 160
    decides the 140 medium and hard (0.95^140 = 0.0008 <= 0.05; at 0.6, 15 wrong of 160 is
    9.4 %, not): 1 + 0.10 x 400 + 50 = 91, the cheapest."""
    assert binom.cdf(3, 100, 0.05) > 0.1 / 3 and 0.95**140 <= 0.05
    choice = cheapest_cascade(
        three_judges(), GOLD, min_agreement=0.95, delta=0.1, human_cost_per_review=HUMAN
    )
    costs = {cascade.name: round(cascade.cost_per_1k, 9) for cascade in choice.cascades}
    print(f"\nmin agreement 0.95: {costs}")
    best = choice.cheapest
    assert best is not None and best.name == "A → C"
    assert best.cost_per_1k == pytest.approx(1 + 40 + 50)
    assert costs["A → B → C"] == pytest.approx(1 + 4 + 40 + 50)
    assert next(c for c in choice.cascades if c.name == "A → B → C").thresholds[1] is None


def test_no_cascade_meets_an_agreement_the_gold_set_cannot_show() -> None:
    """At 0.999 even a judge right on all 400 cases cannot pass: 0.999^400 = 0.67 > 0.1."""
    choice = cheapest_cascade(
        three_judges(), GOLD, min_agreement=0.999, delta=0.1, human_cost_per_review=HUMAN
    )
    assert choice.cheapest is None
    assert all(not cascade.guaranteed and cascade.shares[-1] == 1 for cascade in choice.cascades)
    assert all(cascade.guaranteed_agreement is None for cascade in choice.cascades)


def test_a_failure_goes_on_to_the_next_judge_and_route_sends_each_answer_once() -> None:
    judges = sorted(three_judges(), key=lambda judge: judge.cost_per_answer)
    failing = judges[0].verdict.copy()
    failing[:40] = math.nan  # A fails on 40 easy cases
    judges[0] = Judge(
        "A", failing, np.where(np.isnan(failing), np.nan, judges[0].confidence), 0.001
    )
    cascade = calibrate_cascade(judges, GOLD, alpha=0.1, delta=0.1, human_cost_per_review=HUMAN)
    assert [stage.decided for stage in cascade.stages] == [200, 140, 40]
    assert cascade.stages[0].calibration.failures == 40
    chosen = route(
        [judge.verdict for judge in judges],
        [judge.confidence for judge in judges],
        cascade.thresholds,
    )
    assert np.bincount(chosen + 1).tolist() == [20, 200, 140, 40]
    # The failed easy cases went to B, which is sure of them.
    assert (chosen[:40] == 1).all()
