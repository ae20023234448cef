"""The adversarial suite's statistics: attack success with its interval, the paired test of
two versions and its correction across families, against known values and simulations."""

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from farejudge.evals.adversarial.stats import (
    attack_success,
    by_family,
    flagged,
    fooled,
    holm,
    paired_attack,
    share,
)


def test_attack_success_counts_only_the_parents_the_judge_got_right() -> None:
    parents = [True] * 8 + [False] * 2
    children = [False] * 3 + [True] * 5 + [False] * 2
    figure = attack_success(parents, children)
    assert (figure.parents, figure.right, figure.fooled) == (10, 8, 3)
    assert figure.success.estimate == pytest.approx(3 / 8)
    assert figure.clean_accuracy.estimate == pytest.approx(0.8)
    # Wilson's interval for 3 of 8 (by its formula, z = 1.96): [0.137, 0.694].
    assert figure.success.low == pytest.approx(0.1368, abs=1e-3)
    assert figure.success.high == pytest.approx(0.6943, abs=1e-3)


def test_no_parent_right_leaves_attack_success_undefined() -> None:
    figure = attack_success([False, False], [False, True])
    assert math.isnan(figure.success.estimate) and figure.clean_accuracy.estimate == 0.0
    assert math.isnan(share(0, 0).low)


def test_parents_and_children_must_pair() -> None:
    with pytest.raises(ValueError, match="3 parents but 2 children"):
        fooled([True] * 3, [True] * 2)


def test_the_paired_test_is_mcnemars_exact_one_sided() -> None:
    old = [False] * 30
    new = [True] * 7 + [False] * 23
    result = paired_attack(old, new)
    assert (result.newly_fooled, result.no_longer_fooled) == (7, 0)
    assert result.p_value == pytest.approx(0.5**7)
    # Fooled less often: no evidence the new version is more attackable.
    assert paired_attack(new, old).p_value == 1.0
    mixed = paired_attack([True] * 2 + [False] * 8, [False] * 2 + [True] * 6 + [False] * 2)
    assert mixed.p_value == pytest.approx(binomtest(6, 8, 0.5, alternative="greater").pvalue)
    assert paired_attack([True, False], [True, False]).p_value == 1.0


def test_holm_steps_down_and_stays_monotone() -> None:
    adjusted = holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5})
    assert adjusted == pytest.approx({"a": 0.04, "c": 0.09, "b": 0.09, "d": 0.5})
    assert holm({}) == {}


def _simulated_fooled(
    rng: np.random.Generator, families: int, parents: int, rate: float, extra: dict[int, float]
) -> dict[str, list[bool]]:
    return {f"f{i}": list(rng.random(parents) < extra.get(i, rate)) for i in range(families)}


def test_a_version_fooled_by_one_family_is_flagged_there_alone() -> None:
    rng = np.random.default_rng(0)
    old = _simulated_fooled(rng, 21, 120, 0.05, {})
    new = _simulated_fooled(rng, 21, 120, 0.05, {7: 0.6})
    found = flagged(old, new)
    print(f"flagged: {found}")
    assert list(found) == ["f7"]


def test_a_version_no_attack_moves_is_flagged_in_at_most_5_percent_of_runs() -> None:
    rng = np.random.default_rng(1)
    runs = 200
    any_flag = sum(
        bool(
            flagged(
                _simulated_fooled(rng, 21, 120, 0.1, {}), _simulated_fooled(rng, 21, 120, 0.1, {})
            )
        )
        for _ in range(runs)
    )
    print(f"flagged on some family in {any_flag} of {runs} runs")
    assert any_flag / runs <= 0.05


def test_families_must_match_between_versions() -> None:
    with pytest.raises(ValueError, match="families differ"):
        flagged({"a": [True]}, {"b": [True]})


def test_by_family_pairs_each_attacked_sample_with_its_parent() -> None:
    rows = [
        ("a", {"relation": "gold"}, True),
        ("a~x", {"family": "x", "derived_from": "a"}, False),
        ("a~y", {"family": "y", "derived_from": "a"}, True),
        ("b", {"relation": "gold"}, False),
        ("b~x", {"family": "x", "derived_from": "b"}, False),
        ("b~y", {"family": "y", "derived_from": "b"}, True),
    ]
    figures = by_family(rows)
    assert (figures["x"].parents, figures["x"].right, figures["x"].fooled) == (2, 1, 1)
    assert (figures["y"].parents, figures["y"].right, figures["y"].fooled) == (2, 1, 0)
    assert figures["x"].clean_accuracy.estimate == 0.5
