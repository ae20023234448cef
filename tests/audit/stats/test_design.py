"""The audit sample: drawn again from its seed and population, uniform, stratified, weighed."""

import numpy as np
import pytest
from scipy.stats import chisquare

from farejudge.audit.stats.design import (
    ALL,
    FLAGGED,
    PASSED,
    AuditSample,
    draw_stratified,
    draw_uniform,
    inverse_inclusion,
    strata_by_verdict,
)
from farejudge.core.population import population_hash


def _drafts(count: int) -> dict[str, str]:
    return {f"draft-{i:04d}": f"answer text {i}" for i in range(count)}


def test_the_same_seed_and_population_give_the_same_sample_in_any_order() -> None:
    drafts = _drafts(500)
    first = draw_uniform(drafts, 40, seed=7)
    again = draw_uniform(dict(reversed(list(drafts.items()))), 40, seed=7)
    assert first == again
    assert len(set(first.ids)) == 40 and set(first.ids) <= set(drafts)
    assert first.seed == 7 and first.population == 500
    assert first.population_hash == population_hash(drafts)
    assert first.strata[0].name == ALL and first.stratum_of == (ALL,) * 40
    assert draw_uniform(drafts, 40, seed=8).ids != first.ids


def test_the_record_round_trips_through_json() -> None:
    sample = draw_uniform(_drafts(50), 5, seed=1)
    assert AuditSample.model_validate_json(sample.model_dump_json()) == sample


def test_a_different_population_has_another_hash_than_the_sample_records() -> None:
    # What the estimate compares with the logs' population (audit/period.check_population).
    drafts = _drafts(100)
    sample = draw_uniform(drafts, 10, seed=3)
    assert sample.population_hash == population_hash(drafts)
    changed = {**drafts, "draft-0007": "answer text 7, edited"}
    assert population_hash(changed) != sample.population_hash
    assert population_hash({**drafts, "draft-9999": "one more"}) != sample.population_hash


def test_the_hash_separates_id_from_content() -> None:
    assert population_hash({"ab": "c"}) != population_hash({"a": "bc"})


def test_every_draft_is_equally_likely_to_be_drawn() -> None:
    drafts = _drafts(40)
    counts = dict.fromkeys(drafts, 0)
    seeds = 2_000
    for seed in range(seeds):
        for draft in draw_uniform(drafts, 10, seed).ids:
            counts[draft] += 1
    observed = np.array(list(counts.values()))
    found = chisquare(observed)
    print(
        f"\n{seeds} draws of 10 of 40 drafts: each drawn {observed.min()} to {observed.max()} "
        f"times (expected {seeds * 10 // 40}), chi-square p = {found.pvalue:.3f}"
    )
    assert found.pvalue > 0.001


def test_the_stratified_draw_takes_its_allocation_from_each_stratum() -> None:
    drafts = _drafts(300)
    strata = {d: FLAGGED if i % 3 == 0 else PASSED for i, d in enumerate(sorted(drafts))}
    sample = draw_stratified(drafts, strata, {FLAGGED: 30, PASSED: 20}, seed=5)
    assert sample.design == "stratified"
    assert sum(s == FLAGGED for s in sample.stratum_of) == 30
    assert all(strata[d] == s for d, s in zip(sample.ids, sample.stratum_of, strict=True))
    weights = sample.weights(list(sample.ids))
    assert weights is not None
    assert set(weights.tolist()) == {100 / 30, 200 / 20}
    # Missing labels: a stratum's weight is shared among the labels it has.
    labelled = [d for d, s in zip(sample.ids, sample.stratum_of, strict=True) if s == PASSED][:10]
    labelled += [d for d, s in zip(sample.ids, sample.stratum_of, strict=True) if s == FLAGGED]
    weights = sample.weights(labelled)
    assert weights is not None and weights[0] == 200 / 10 and weights[-1] == 100 / 30


def test_a_uniform_sample_has_no_weights_and_a_label_outside_it_is_named() -> None:
    sample = draw_uniform(_drafts(20), 5, seed=2)
    assert sample.weights(list(sample.ids[:3])) is None
    outside = next(d for d in _drafts(20) if d not in sample.ids)
    with pytest.raises(ValueError, match=f"draft '{outside}' is labelled but not in the sample"):
        sample.weights([sample.ids[0], outside])


def test_a_stratum_with_no_label_is_named() -> None:
    with pytest.raises(ValueError, match="stratum 'passed' has 80 drafts but no label"):
        inverse_inclusion({FLAGGED: 20, PASSED: 80}, [FLAGGED, FLAGGED])
    with pytest.raises(ValueError, match="stratum 'other', which has no draft"):
        inverse_inclusion({FLAGGED: 20}, [FLAGGED, "other"])


@pytest.mark.parametrize(
    ("allocation", "message"),
    [
        ({FLAGGED: 2, PASSED: 0}, "stratum 'passed' has 6 drafts but no draw"),
        ({FLAGGED: 2, PASSED: 7}, "7 drafts to draw from stratum 'passed' of 6"),
        ({FLAGGED: 2, PASSED: 2, "other": 1}, "stratum 'other' has a draw but no draft"),
    ],
)
def test_a_bad_allocation_is_named(allocation: dict[str, int], message: str) -> None:
    drafts = _drafts(10)
    strata = {d: FLAGGED if i < 4 else PASSED for i, d in enumerate(sorted(drafts))}
    with pytest.raises(ValueError, match=message):
        draw_stratified(drafts, strata, allocation, seed=1)


def test_more_draws_than_drafts_or_none_at_all_is_refused() -> None:
    with pytest.raises(ValueError, match="11 drafts to draw from stratum 'all' of 10"):
        draw_uniform(_drafts(10), 11, seed=1)
    with pytest.raises(ValueError, match="no draw"):
        draw_uniform(_drafts(10), 0, seed=1)
    with pytest.raises(ValueError, match="no drafts"):
        draw_uniform({}, 1, seed=1)
    with pytest.raises(ValueError, match="non-negative"):
        draw_uniform(_drafts(10), 1, seed=-1)
    assert len(draw_uniform(_drafts(10), 10, seed=1).ids) == 10


def test_strata_by_verdict_puts_failures_with_the_flagged() -> None:
    assert strata_by_verdict([0.9, 0.1, float("nan"), 0.5]) == [FLAGGED, PASSED, FLAGGED, FLAGGED]
    assert strata_by_verdict([0.6], cut=0.7) == [PASSED]
