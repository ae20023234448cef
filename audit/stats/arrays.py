"""The arrays the audit's functions take: one-dimensional floats, checked where they come in."""

import numpy as np
from numpy.typing import ArrayLike, NDArray

Floats = NDArray[np.float64]


def as_floats(values: ArrayLike, name: str) -> Floats:
    """`values` as a one-dimensional float array, or a ValueError naming it."""
    found = np.asarray(values, dtype=np.float64)
    if found.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, not of shape {found.shape}")
    return found
