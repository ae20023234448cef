"""Agreement among any number of annotators: Krippendorff's alpha, Cohen's and Fleiss' kappa.

Every figure reads a label matrix (`label_matrix`: items by annotators, NaN where an annotator
did not label an item) and is nominal: labels are categories, any two different labels
disagree alike. A figure with no variation to measure against (every label the same, so
chance agreement is 1) is NaN.
"""

import math
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import ArrayLike

from farejudge.core.intervals import Interval, percentile_interval
from farejudge.raters._labels import (
    Floats,
    category_counts,
    item_weights,
    label_matrix,
)


def _alpha_parts(labels: Floats) -> tuple[Floats, Floats]:
    """Each pairable item's label counts (a row per item that two or more annotators labelled)
    and its disagreeing pairs of values, each weighted 1 / (labels on the item − 1).

    Krippendorff's nominal alpha is a function of these rows' totals: the value counts n_c and
    the off-diagonal total of the coincidence matrix.
    """
    counts = category_counts(labels)
    values = counts.sum(axis=1)
    pairable = values >= 2
    counts, values = counts[pairable], values[pairable]
    disagreeing = (values**2 - (counts**2).sum(axis=1)) / (values - 1)
    return counts, disagreeing


def _alpha_from_totals(value_counts: Floats, disagreement: Floats) -> Floats:
    """alpha = 1 − (n − 1) · D_o / D_e for each row of totals: D_o the coincidence matrix's
    off-diagonal total, D_e = n² − Σ n_c² its expected counterpart; NaN where D_e is 0."""
    n = value_counts.sum(axis=-1)
    expected = n**2 - (value_counts**2).sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (n - 1) * disagreement / expected
    return np.where(expected > 0, alpha, np.nan)


def krippendorff_alpha(labels: ArrayLike) -> float:
    """Krippendorff's alpha (nominal) of a label matrix with missing labels.

    Items fewer than two annotators labelled carry no pair and are left out, as Krippendorff
    defines it. NaN where fewer than two values are pairable or all of them are one label.
    """
    counts, disagreeing = _alpha_parts(label_matrix(labels))
    return float(_alpha_from_totals(counts.sum(axis=0), np.asarray(disagreeing.sum())))


def krippendorff_alpha_interval(
    labels: ArrayLike, resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> Interval:
    """Krippendorff's alpha with a percentile bootstrap interval over items.

    A resample draws the pairable items (those two or more annotators labelled) with
    replacement, keeping each item's labels together; the same seed draws the same resamples.
    (Krippendorff's own bootstrap resamples pairs of values; resampling items keeps an item's
    annotators together, as the other figures' intervals over cases do.)
    """
    counts, disagreeing = _alpha_parts(label_matrix(labels))
    estimate = float(_alpha_from_totals(counts.sum(axis=0), np.asarray(disagreeing.sum())))
    if len(counts) == 0:
        return Interval(estimate, math.nan, math.nan)
    weights = item_weights(len(counts), resamples, seed)
    values = _alpha_from_totals(weights @ counts, weights @ disagreeing)
    return percentile_interval(estimate, values, level)


def cohen_kappa(first: ArrayLike, second: ArrayLike) -> float:
    """Cohen's kappa of two annotators on the items both labelled (NaN marks a missing label).

    NaN where they share no item or chance agreement is 1 (one label throughout).
    """
    pair = label_matrix(np.column_stack([np.asarray(first, float), np.asarray(second, float)]))
    shared = pair[~np.isnan(pair).any(axis=1)]
    if len(shared) == 0:
        return math.nan
    categories = np.unique(shared)
    observed = float(np.mean(shared[:, 0] == shared[:, 1]))
    marginals = (shared[:, :, None] == categories).mean(axis=0)
    chance = float(marginals[0] @ marginals[1])
    return (observed - chance) / (1 - chance) if chance < 1 else math.nan


def pairwise_kappa(labels: ArrayLike) -> Floats:
    """Cohen's kappa of every pair of annotators on the items both labelled: a symmetric
    annotators by annotators matrix, NaN on the diagonal and where a pair's kappa is undefined."""
    found = label_matrix(labels)
    annotators = found.shape[1]
    kappas = np.full((annotators, annotators), np.nan)
    for a, b in combinations(range(annotators), 2):
        kappas[a, b] = kappas[b, a] = cohen_kappa(found[:, a], found[:, b])
    return kappas


def agreement_with_rest(labels: ArrayLike) -> Floats:
    """Each annotator's agreement with the rest: the mean of its Cohen's kappas with each other
    annotator (pairs whose kappa is undefined left out; NaN where none is defined).

    The mean pairwise kappa rather than a kappa against the others' majority: with two others,
    or any even number, the majority is undefined wherever they split, and the pairs use every
    item two annotators share even where the others are missing.
    """
    return _row_means(pairwise_kappa(labels))


def _row_means(kappas: Floats) -> Floats:
    """Each row's mean over its defined (not NaN) entries; NaN where a row has none."""
    defined = ~np.isnan(kappas)
    totals = np.where(defined, kappas, 0.0).sum(axis=1)
    counts = defined.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)


def fleiss_kappa(labels: ArrayLike) -> float | None:
    """Fleiss' kappa where every item was labelled by the same number of annotators (two or
    more; which annotators may differ from item to item); None where the numbers differ.

    NaN where chance agreement is 1 (one label throughout).
    """
    counts = category_counts(label_matrix(labels))
    raters = counts.sum(axis=1)
    if len(counts) == 0 or raters[0] < 2 or not (raters == raters[0]).all():
        return None
    n = raters[0]
    per_item = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    shares = counts.sum(axis=0) / counts.sum()
    chance = float(shares @ shares)
    return float((per_item.mean() - chance) / (1 - chance)) if chance < 1 else math.nan


@dataclass(frozen=True)
class Agreement:
    """The annotators' agreement with each other on one label matrix."""

    alpha: Interval
    """Krippendorff's alpha (nominal) with its bootstrap interval over items."""
    pairwise_kappa: Floats
    """Cohen's kappa of each pair (annotators by annotators, NaN on the diagonal)."""
    with_rest: Floats
    """Each annotator's mean Cohen's kappa with the others."""
    fleiss_kappa: float | None
    """Fleiss' kappa; None where items were labelled by different numbers of annotators."""


def agreement(
    labels: ArrayLike, resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> Agreement:
    """Every agreement figure of a label matrix (items by annotators, NaN where missing)."""
    found = label_matrix(labels)
    kappas = pairwise_kappa(found)
    return Agreement(
        alpha=krippendorff_alpha_interval(found, resamples, seed, level),
        pairwise_kappa=kappas,
        with_rest=_row_means(kappas),
        fleiss_kappa=fleiss_kappa(found),
    )
