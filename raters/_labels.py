"""The label matrix every figure here reads, and the item resamples of their intervals.

A label matrix has a row per item (a case) and a column per annotator; an entry is the
annotator's label, NaN where that annotator did not label that item. Binary labels are 1 for
ungrounded and 0 for grounded, as `Confusion` counts them.
"""

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]


def label_matrix(labels: ArrayLike, *, binary: bool = False) -> Floats:
    """`labels` as a float matrix of items by annotators, NaN for a missing label.

    Raises ValueError (the caller passed something no figure is defined on) for another shape,
    an infinite label, or, where `binary`, a label other than 0 and 1.
    """
    found = np.array(labels, dtype=float)
    if found.ndim != 2:
        raise ValueError(f"labels must be a matrix of items by annotators, not shape {found.shape}")
    if np.isinf(found).any():
        raise ValueError("labels must be finite or NaN (not labelled)")
    if binary and not np.isin(found[~np.isnan(found)], (0.0, 1.0)).all():
        raise ValueError("binary labels must be 0 (grounded), 1 (ungrounded) or NaN (not labelled)")
    return found


def category_counts(labels: Floats) -> Floats:
    """How many annotators gave each item each label: a row per item, a column per label seen."""
    categories = np.unique(labels[~np.isnan(labels)])
    counts: Floats = (labels[:, :, None] == categories).sum(axis=1).astype(float)
    return counts


def item_weights(items: int, resamples: int, seed: int) -> Floats:
    """How often each of `items` items is drawn in each of `resamples` resamples with
    replacement (a row per resample): a figure of per-item totals is then one matrix product."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(items, np.full(items, 1 / items), size=resamples).astype(float)
