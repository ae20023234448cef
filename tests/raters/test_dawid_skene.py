"""Dawid-Skene on binary labels: equal to crowd-kit's DawidSkene, and the annotators'
sensitivity and specificity found again in simulation."""

import numpy as np
import pytest

from farejudge.raters import dawid_skene
from tests.support.raters import annotators, as_floats, reference_cases


def test_equals_crowd_kit_step_for_step() -> None:
    provenance, cases = reference_cases("dawid_skene_crowdkit.json")
    assert provenance["package"] == "crowd-kit 1.4.2"
    for case in cases:
        tol = case["tol"] if case["tol"] is not None else -np.inf
        found = dawid_skene(as_floats(case["labels"]), iterations=case["n_iter"], tol=tol)
        assert found.iterations == case["iterations"], case["name"]
        np.testing.assert_allclose(found.sensitivity, case["sensitivity"], rtol=0, atol=1e-6)
        np.testing.assert_allclose(found.specificity, case["specificity"], rtol=0, atol=1e-6)
        assert found.prevalence == pytest.approx(case["prevalence"], abs=1e-6)
        np.testing.assert_allclose(found.posterior, case["posterior"], rtol=0, atol=1e-6)
    # The fixture holds an annotator worse than chance and a run stopped by its step limit.
    assert min(min(c["sensitivity"]) for c in cases) < 0.5
    assert any(c["iterations"] == c["n_iter"] for c in cases)


def test_recovers_five_annotators_of_known_quality() -> None:
    # 20 panels of 5 annotators, each sensitivity and specificity drawn in [0.70, 0.95], on
    # 500 cases of which 30 % are ungrounded.
    rng = np.random.default_rng(64)
    errors, sorted_right = [], []
    for _ in range(20):
        sensitivity = rng.uniform(0.70, 0.95, 5)
        specificity = rng.uniform(0.70, 0.95, 5)
        simulated = annotators(rng, 500, sensitivity, specificity, prevalence=0.3)
        found = dawid_skene(simulated.labels)
        assert found.converged
        figures = np.r_[found.sensitivity - sensitivity, found.specificity - specificity]
        errors.append(float(np.abs(figures).mean()))
        sorted_right.append(float(((found.posterior > 0.5) == simulated.truth).mean()))
    print(
        f"Dawid-Skene, 5 annotators x 500 cases, 20 panels: mean absolute error of the 10 "
        f"sensitivities and specificities {np.mean(errors):.4f} on average, {max(errors):.4f} "
        f"at most; the soft label on the right side of 0.5 for {min(sorted_right):.3f} of the "
        f"cases at least"
    )
    assert max(errors) <= 0.05
    assert min(sorted_right) > 0.9


def test_soft_labels_follow_the_votes_of_equal_annotators() -> None:
    # Three equally good annotators: an item two of them call ungrounded is more likely
    # ungrounded than not, one all three call so more likely still.
    rng = np.random.default_rng(1)
    quality = np.full(3, 0.85)
    labels = annotators(rng, 400, quality, quality, 0.5).labels
    found = dawid_skene(labels)
    votes = labels.sum(axis=1)
    means = [found.posterior[votes == v].mean() for v in range(4)]
    assert means[0] < 0.1 < means[1] < 0.5 < means[2] < 0.9 < means[3]


def test_an_annotator_who_never_says_ungrounded_has_sensitivity_zero() -> None:
    labels = np.array([[1, 1, 0], [0, 0, 0], [1, 1, 0], [0, np.nan, 0]], dtype=float)
    found = dawid_skene(labels)
    assert found.sensitivity[2] == 0.0
    assert found.specificity[2] == 1.0


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ([[1.0, 0.0], [np.nan, np.nan]], "item 1 has no label"),
        ([[1.0, 1.0], [1.0, np.nan]], "every label is the same"),
        ([[1.0, 2.0]], "binary labels must be 0"),
    ],
)
def test_labels_it_cannot_estimate_from_are_refused(
    labels: list[list[float]], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        dawid_skene(labels)
