"""A panel's effective number of judges: independent members count fully, copies once."""

import math

import numpy as np
import pytest

from farejudge.raters import MOSTLY_ONE_JUDGE, effective_judges
from tests.support.raters import symmetric_labels


def _gold(rng: np.random.Generator, cases: int) -> np.ndarray:
    return rng.integers(0, 2, cases)


def test_independent_members_count_as_three_and_copies_as_one() -> None:
    rng = np.random.default_rng(7)
    cases = 500
    gold = _gold(rng, cases)
    independent = symmetric_labels(rng, gold[:, None], 0.8, (cases, 3))
    # Three members who copy one judge, each disagreeing with it on 5 % of the cases.
    leader = symmetric_labels(rng, gold, 0.8, (cases,))
    copies = np.where(rng.random((cases, 3)) < 0.95, leader[:, None], 1 - leader[:, None])
    apart = effective_judges(independent, gold, resamples=1000, seed=1)
    alike = effective_judges(copies, gold, resamples=1000, seed=1)
    print(
        f"effective judges of 3 members on {cases} cases: independent errors "
        f"{apart.effective.estimate:.2f} [{apart.effective.low:.2f}, {apart.effective.high:.2f}] "
        f"(rho {apart.mean_correlation:.3f}); copies of one judge "
        f"{alike.effective.estimate:.2f} [{alike.effective.low:.2f}, {alike.effective.high:.2f}] "
        f"(rho {alike.mean_correlation:.3f})"
    )
    assert apart.effective.estimate == pytest.approx(3, abs=0.3)
    assert alike.effective.estimate == pytest.approx(1, abs=0.3)
    assert apart.effective.low < apart.effective.estimate < apart.effective.high
    assert alike.mostly_one_judge and not apart.mostly_one_judge
    assert MOSTLY_ONE_JUDGE == 1.5


def test_it_is_kish_on_the_mean_pairwise_correlation() -> None:
    rng = np.random.default_rng(3)
    gold = _gold(rng, 300)
    shared = rng.random(300) < 0.15
    verdicts = np.where(
        shared[:, None] | (rng.random((300, 4)) < 0.1), 1 - gold[:, None], gold[:, None]
    )
    errors = (verdicts != gold[:, None]).astype(float)
    correlations = np.corrcoef(errors.T)[np.triu_indices(4, 1)]
    found = effective_judges(verdicts, gold, resamples=200)
    assert found.members == 4
    assert found.mean_correlation == pytest.approx(correlations.mean(), abs=1e-12)
    assert found.effective.estimate == pytest.approx(4 / (1 + 3 * correlations.mean()))


def test_the_interval_is_seeded() -> None:
    rng = np.random.default_rng(4)
    gold = _gold(rng, 200)
    verdicts = symmetric_labels(rng, gold[:, None], 0.8, (200, 3))
    first = effective_judges(verdicts, gold, resamples=500, seed=2)
    assert first == effective_judges(verdicts, gold, resamples=500, seed=2)
    assert first.effective != effective_judges(verdicts, gold, resamples=500, seed=3).effective


def test_members_without_errors_have_no_correlation() -> None:
    gold = np.array([0, 1, 0, 1, 1, 0])
    perfect = np.column_stack([gold, gold, gold])
    found = effective_judges(perfect, gold, resamples=50)
    assert math.isnan(found.mean_correlation) and math.isnan(found.effective.estimate)
    # One member that never errs leaves the other pair's correlation to count alone.
    first = np.array([1, 1, 0, 1, 0, 0])
    mixed = np.column_stack([gold, first, first])
    assert effective_judges(mixed, gold, resamples=50).mean_correlation == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("verdicts", "gold", "message"),
    [
        (np.zeros((4, 1)), np.zeros(4), "two members or more"),
        (np.zeros((4, 2)), np.zeros(3), "one label per case"),
        (np.array([[0.0, np.nan]]), np.zeros(1), "none missing"),
    ],
)
def test_bad_panels_are_refused(verdicts: np.ndarray, gold: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        effective_judges(verdicts, gold)
