"""Case resamples for the bootstrap: their weights, the totals they give, the interval.

A resample draws the cases with replacement (all epochs of a case together, since epochs of
one case are not independent draws) and is kept as case weights, how often each case was
drawn: a figure of column totals is then one matrix product per block of resamples. The same
`Resampling` over the same number of cases draws the same resamples, whatever the block size.
"""

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from farejudge.comparison.stats.intervals import Interval, percentile_interval


@dataclass(frozen=True)
class Resampling:
    """How many case resamples the bootstrap draws, and the seed it draws them from."""

    resamples: int = 2000
    seed: int = 0


Statistic = Callable[[NDArray[np.float64]], float]
"""A figure computed from column totals over cases (counts of TP, FN, ..., claims matched)."""


def column_ratio(num: int, den: int) -> Statistic:
    """The statistic that is column `num`'s total over column `den`'s; NaN where that is 0."""

    def statistic(t: NDArray[np.float64]) -> float:
        return float(t[num] / t[den]) if t[den] > 0 else float("nan")

    return statistic


# Draws held at once: about 32 MB of int64 indices, whatever the cases and resamples.
CHUNK_DRAWS = 1 << 22


def resample_weights(n: int, count: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """How often each of n cases is drawn in each of `count` resamples, from `rng`'s stream."""
    draws = rng.integers(0, n, size=(count, n))
    # Row by row, into the floats: one bincount over every row needs each row offset by n
    # first and its counts converted after, two more passes over the block.
    weights = np.empty((count, n))
    for row, drawn in zip(weights, draws, strict=True):
        row[:] = np.bincount(drawn, minlength=n)
    return weights


@lru_cache(maxsize=4)
def one_chunk_weights(n: int, resampling: Resampling) -> NDArray[np.float64]:
    """Case weights of every resample where they fit in one chunk, as `weight_blocks` draws
    them: the many figures over one set of cases (a panel's members, each run's stability,
    the graded figures) then share one draw instead of repeating it."""
    found = resample_weights(n, resampling.resamples, np.random.default_rng(resampling.seed))
    found.flags.writeable = False
    return found


def weight_blocks(
    n: int, resampling: Resampling, chunk: int | None = None
) -> Iterator[NDArray[np.float64]]:
    """The case weights of every resample over n cases (a row per resample, a column per
    case), `chunk` resamples at a time (by default as many as fit in CHUNK_DRAWS).

    The draws come from one generator stream, so the same resampling gives the same weights at
    any chunk size, and memory stays at one chunk of them.
    """
    step = max(1, chunk or CHUNK_DRAWS // max(n, 1))
    if resampling.resamples <= step:
        yield one_chunk_weights(n, resampling)
        return
    rng = np.random.default_rng(resampling.seed)
    for first in range(0, resampling.resamples, step):
        yield resample_weights(n, min(step, resampling.resamples - first), rng)


def resampled_totals(
    rows: NDArray[np.float64], resampling: Resampling, chunk: int | None = None
) -> NDArray[np.float64]:
    """Column totals of `rows` (one row per case) in each case resample.

    Resample r draws n cases with replacement; its totals are its case counts times the rows
    (`weight_blocks`, `chunk` resamples at a time). The totals agree to rounding (1e-12) at any
    chunk size, not bit for bit: the matrix product's summation order depends on the chunk's
    shape and on the BLAS kernel the CPU picks. Any rows with the same number of cases are
    resampled alike.
    """
    n = len(rows)
    totals = np.empty((resampling.resamples, rows.shape[1]))
    if n == 0:
        totals.fill(0.0)
        return totals
    first = 0
    for weights in weight_blocks(n, resampling, chunk):
        totals[first : first + len(weights)] = weights @ rows
        first += len(weights)
    return totals


def resampled_totals_many(
    matrices: Sequence[NDArray[np.float64]], resampling: Resampling
) -> list[NDArray[np.float64]]:
    """`resampled_totals` of each matrix, as a call on each alone gives them: matrices with
    the same number of rows (cases) are resampled alike, so they share one pass of draws."""
    found: list[NDArray[np.float64]] = [np.empty((0, 0))] * len(matrices)
    by_cases: dict[int, list[int]] = {}
    for i, rows in enumerate(matrices):
        by_cases.setdefault(len(rows), []).append(i)
    for group in by_cases.values():
        widths = np.cumsum([matrices[i].shape[1] for i in group])[:-1]
        stacked = np.hstack([matrices[i] for i in group])
        parts = np.split(resampled_totals(stacked, resampling), widths, axis=1)
        for i, part in zip(group, parts, strict=True):
            found[i] = part
    return found


def statistic_values(statistic: Statistic, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    """`statistic` of each row of resampled totals."""
    return np.array([statistic(t) for t in totals], dtype=float)


def bootstrap(
    rows: NDArray[np.float64],
    statistic: Statistic,
    resampling: Resampling,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap interval of `statistic` over resampled rows (one row per case).

    Every figure in the report is a function of column totals, so a resample is drawn as
    case weights (how often each case was drawn) and its totals are one matrix product
    (`resampled_totals`; several figures of the same rows can share one such draw).
    """
    estimate = float(statistic(rows.sum(axis=0)))
    if len(rows) == 0 or math.isnan(estimate):
        return Interval(estimate, math.nan, math.nan)
    totals = resampled_totals(rows, resampling)
    return percentile_interval(estimate, statistic_values(statistic, totals), level)
