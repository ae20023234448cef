"""Candidates' figures over resamples and the cost-quality frontier, worked out by hand:
dominance, unknown costs, frontier shares over enumerated and seeded resamples, candidates
on different cases, latency quantiles."""

import math
from collections.abc import Sequence

import numpy as np
import pytest

from farejudge.comparison.deploy.frontier import (
    CandidateRows,
    on_frontier,
    resample_candidates,
    weighted_quantiles,
)
from farejudge.comparison.stats.bootstrap import Resampling, one_chunk_weights


def test_the_frontier_keeps_what_nothing_beats_on_both_cost_and_quality() -> None:
    cost = np.array([1.0, 2.0, 2.0, 3.0, 0.5])
    quality = np.array([0.8, 0.9, 0.7, 0.9, 0.6])
    # 2.0/0.7 is beaten by 1.0/0.8; 3.0/0.9 by 2.0/0.9 (as good, cheaper).
    assert on_frontier(cost, quality)[0].tolist() == [True, True, False, False, True]


def test_an_unknown_cost_is_placed_on_quality_alone_and_a_tie_keeps_both() -> None:
    cost = np.array([np.nan, 1.0, 1.0])
    quality = np.array([0.8, 0.8, 0.7])
    # The unpriced one and the priced one tie on quality: neither beats the other.
    assert on_frontier(cost, quality)[0].tolist() == [True, True, False]
    assert on_frontier(np.array([1.0, 2.0]), np.array([np.nan, 0.5]))[0].tolist() == [False, True]


# Cases u0, u1 (gold ungrounded), g0, g1 (gold grounded). X is right on all of them at $2 a
# call, Y misses u0 at $1, Z flags g0 at $0.50.
GOLD = np.array([1.0, 1.0, 0.0, 0.0])


FLAGGED = {"X": [1, 1, 0, 0], "Y": [0, 1, 0, 0], "Z": [1, 1, 1, 0]}


PRICE = {"X": 2.0, "Y": 1.0, "Z": 0.5}


def hand_rows(name: str, cases: Sequence[int] = (0, 1, 2, 3)) -> CandidateRows:
    flagged = np.array(FLAGGED[name], dtype=float)[list(cases)]
    gold = GOLD[list(cases)]
    n = len(cases)
    return CandidateRows(
        cases=np.array(cases, dtype=np.int64),
        cells=np.column_stack(
            [gold * flagged, gold * (1 - flagged), (1 - gold) * flagged, (1 - gold) * (1 - flagged)]
        ),
        failure=np.zeros(n),
        cost=np.full(n, PRICE[name] / 1000),
        flip=np.full(n, np.nan),
        call_rows=np.arange(n, dtype=np.int64),
        latency=np.full(n, 0.1),
    )


# Five resamples of the four cases, as counts of each case drawn.
WEIGHTS = np.array(
    [
        [1, 1, 1, 1],  # X 1.00 at $2, Y 0.75 at $1, Z 0.75 at $0.5: X and Z (Z beats Y)
        [0, 2, 1, 1],  # u0 not drawn: Y perfect at $1 beats X; Z 0.75 at $0.5: Y and Z
        [2, 1, 0, 1],  # g0 not drawn: Z perfect at $0.5 beats both: Z
        [1, 1, 2, 0],  # X 1.00, Y 0.75, Z 0.50 (both grounded draws flagged): all three
        [2, 2, 0, 0],  # no grounded case: balanced accuracy undefined, the resample unused
    ],
    dtype=float,
)


def test_frontier_shares_equal_the_hand_count_over_enumerated_resamples() -> None:
    found = resample_candidates(
        [hand_rows(n) for n in "XYZ"], 4, "balanced_accuracy", Resampling(5, 0), weights=WEIGHTS
    )
    assert found.usable == 4
    assert found.frontier_share == [2 / 4, 2 / 4, 4 / 4]
    assert found.on_frontier == [True, False, True], "at the point estimates, the first row"
    assert [p["balanced_accuracy"] for p in found.point] == [1.0, 0.75, 0.75]
    assert [p["cost_per_1k"] for p in found.point] == pytest.approx([2.0, 1.0, 0.5])


def _by_hand(weights: np.ndarray) -> list[float]:
    """Frontier shares with plain loops: per resample each candidate's balanced accuracy, and
    whether another is at least as good and as cheap, and better on one."""
    on = {name: 0 for name in "XYZ"}
    usable = 0
    for w in weights:
        quality = {}
        for name, flagged in FLAGGED.items():
            tp = sum(wi * g * f for wi, g, f in zip(w, GOLD, flagged, strict=True))
            pos = sum(wi * g for wi, g in zip(w, GOLD, strict=True))
            tn = sum(wi * (1 - g) * (1 - f) for wi, g, f in zip(w, GOLD, flagged, strict=True))
            neg = sum(wi * (1 - g) for wi, g in zip(w, GOLD, strict=True))
            quality[name] = (tp / pos + tn / neg) / 2 if pos and neg else math.nan
        if any(math.isnan(q) for q in quality.values()):
            continue
        usable += 1
        for b in "XYZ":
            beaten = any(
                quality[a] >= quality[b]
                and PRICE[a] <= PRICE[b]
                and (quality[a] > quality[b] or PRICE[a] < PRICE[b])
                for a in "XYZ"
            )
            on[b] += not beaten
    return [on[name] / usable for name in "XYZ"]


def test_seeded_frontier_shares_equal_a_hand_count_over_the_same_resamples() -> None:
    found = resample_candidates(
        [hand_rows(n) for n in "XYZ"], 4, "balanced_accuracy", Resampling(400, 7)
    )
    # The resamples a seed gives are the case weights `one_chunk_weights` draws.
    assert found.frontier_share == pytest.approx(_by_hand(one_chunk_weights(4, Resampling(400, 7))))
    assert 0 < found.frontier_share[1] < found.frontier_share[0] < found.frontier_share[2] == 1


def test_candidates_on_different_cases_are_drawn_together_on_the_ones_they_share() -> None:
    # Y judged only u1 and g0 (cases 1 and 2): each resample weighs them as for X and Z.
    found = resample_candidates(
        [hand_rows("X"), hand_rows("Y", (1, 2)), hand_rows("Z")],
        4,
        "balanced_accuracy",
        Resampling(4, 0),
        weights=WEIGHTS[:4],
    )
    # Y is right on both its cases: perfect wherever it drew one of each, at $1.
    assert found.point[1]["balanced_accuracy"] == 1.0
    # Row 3 (g0 not drawn) leaves Y no grounded case: undefined, so that row is not used.
    assert found.usable == 3


def test_latency_quantiles_are_numpys_inverted_cdf_and_weights_repeat_calls() -> None:
    values = np.random.default_rng(3).exponential(0.4, 37)
    found = weighted_quantiles(np.ones((1, 37)), values, (0.5, 0.95))
    for q in (0.5, 0.95):
        assert found[q][0] == np.quantile(values, q, method="inverted_cdf")
    weights = np.random.default_rng(4).integers(0, 4, (1, 37)).astype(float)
    repeated = np.repeat(values, weights[0].astype(int))
    assert weighted_quantiles(weights, values, (0.95,))[0.95][0] == np.quantile(
        repeated, 0.95, method="inverted_cdf"
    )
    assert math.isnan(weighted_quantiles(np.ones((1, 2)), np.array([0.1, np.nan]), (0.5,))[0.5][0])
