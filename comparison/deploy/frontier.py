"""Candidates' figures over case resamples drawn together, and the cost-quality frontier.

A candidate (a prompt version with a judge model, or a panel of them) is a row per case: its
confusion cells at its operating point, its share of epochs with no verdict, its cost per
call, whether its verdict changed between epochs, and the latency of each of its calls. Every
figure is computed from case weights by one code path: the estimate is the all-ones
weighting, a bootstrap resample the weighting that counts how often each case was drawn.
Candidates are resampled together, a case drawn for one drawn for all, so the frontier of a
resample compares the candidates on the same draw of cases.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from farejudge.comparison.stats.bootstrap import Resampling, weight_blocks
from farejudge.comparison.stats.intervals import Interval, percentile_interval, wilson
from farejudge.core.decision_file import Quality

Floats = NDArray[np.float64]
QUALITIES: tuple[Quality, ...] = ("balanced_accuracy", "recall")


@dataclass(frozen=True)
class CandidateRows:
    """One candidate's cases, a row each, and its calls."""

    cases: NDArray[np.int64]
    """Each row's position in the comparison's list of cases: rows of two candidates at the
    same position are the same case, and are drawn together."""
    cells: Floats
    """(rows, 4): tp, fn, fp, tn at the operating point, as shares of the case's epochs; a
    judge failure adds to none."""
    failure: Floats
    """Share of the case's epochs with no verdict."""
    cost: Floats
    """Mean cost of one call on the case, in dollars; NaN where it is unknown."""
    flip: Floats
    """1 where the case's verdict differs between its epochs, 0 where it does not, NaN with a
    single epoch (nothing to compare)."""
    call_rows: NDArray[np.int64]
    """The row of each call (a case-epoch)."""
    latency: Floats
    """Seconds each call took; NaN where it is unknown."""


def _divide(num: Floats, den: Floats) -> Floats:
    out = np.full(np.broadcast(num, den).shape, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out


def weighted_quantiles(
    weights: Floats, values: Floats, quantiles: Sequence[float]
) -> dict[float, Floats]:
    """Per weighting (rows of `weights`, one column per value), the smallest value whose
    weighted share at or below it reaches each quantile: numpy's "inverted_cdf" quantile,
    which under all-ones weights is `np.quantile(values, q, method="inverted_cdf")`."""
    if len(values) == 0 or np.isnan(values).any():
        return {q: np.full(len(weights), np.nan) for q in quantiles}
    order = np.argsort(values, kind="stable")
    return _ranked_quantiles(weights[:, order], values[order], quantiles)


def _ranked_quantiles(
    weights: Floats, ranked: Floats, quantiles: Sequence[float]
) -> dict[float, Floats]:
    """`weighted_quantiles` of values already in ascending order, the weights' columns too."""
    # Along the first axis of the transpose: the same sums, several times faster in numpy.
    cumulative = np.cumsum(weights.T, axis=0).T
    total = cumulative[:, -1]
    found = {q: np.full(len(weights), np.nan) for q in quantiles}
    for r, (running, whole) in enumerate(zip(cumulative, total, strict=True)):
        if whole > 0:
            # Whole counts summed as floats: a hair of slack so that reaching the share counts.
            at = np.searchsorted(running, [q * whole - 1e-9 for q in quantiles])
            for q, i in zip(quantiles, at, strict=True):
                found[q][r] = ranked[i]
    return found


@dataclass(frozen=True)
class _Prepared:
    """A candidate's rows as every weighting reads them: one matrix product gives the totals,
    one gather and running sum the latency quantiles."""

    columns: Floats
    """Per row: tp, fn, fp, tn, failure, cost, 1, flip, whether the flip is known."""
    cost_known: bool
    calls: NDArray[np.int64]
    """The row of each call, fastest call first; empty when a latency is unknown."""
    latencies: Floats
    """Each call's latency, ascending."""
    every_case: bool
    """Whether its rows are every case of the comparison, in order: its weights are theirs."""


_TP, _FN, _FP, _TN, _FAILED, _COST, _ROWS, _FLIPS, _FLIP_ROWS = range(9)


def _prepare(rows: CandidateRows, cases: int) -> _Prepared:
    known_flip = ~np.isnan(rows.flip)
    columns = np.column_stack(
        [
            rows.cells,
            rows.failure,
            np.nan_to_num(rows.cost),
            np.ones(len(rows.cases)),
            np.where(known_flip, rows.flip, 0.0),
            known_flip.astype(float),
        ]
    )
    timed = not np.isnan(rows.latency).any()
    order = np.argsort(rows.latency, kind="stable") if timed else np.array([], dtype=np.int64)
    return _Prepared(
        columns=columns,
        cost_known=not np.isnan(rows.cost).any(),
        calls=rows.call_rows[order],
        latencies=rows.latency[order],
        every_case=np.array_equal(rows.cases, np.arange(cases)),
    )


def _figures(rows: _Prepared, weights: Floats) -> dict[str, Floats]:
    """Every figure of one candidate under each weighting of its rows (one row per
    weighting, one column per case row)."""
    t = (weights @ rows.columns).T
    recall = _divide(t[_TP], t[_TP] + t[_FN])
    specificity = _divide(t[_TN], t[_TN] + t[_FP])
    cost = _divide(t[_COST], t[_ROWS]) if rows.cost_known else np.full(len(weights), np.nan)
    if len(rows.calls):
        calls = np.take(weights, rows.calls, axis=1)
        latency = _ranked_quantiles(calls, rows.latencies, (0.5, 0.95))
    else:
        latency = {q: np.full(len(weights), np.nan) for q in (0.5, 0.95)}
    return {
        "balanced_accuracy": (recall + specificity) / 2,
        "recall": recall,
        "precision": _divide(t[_TP], t[_TP] + t[_FP]),
        "failure_rate": _divide(t[_FAILED], t[_ROWS]),
        "cost_per_1k": 1000 * cost,
        "latency_p50": latency[0.5],
        "latency_p95": latency[0.95],
        "flip_rate": _divide(t[_FLIPS], t[_FLIP_ROWS]),
    }


def on_frontier(cost: Floats, quality: Floats) -> NDArray[np.bool_]:
    """Whether each candidate (last axis) is on the cost-quality frontier: no other candidate
    is at least as good on both, and better on one. A cost that is unknown (NaN) is compared
    as equal to any other, so the candidate is placed on quality alone; an undefined quality
    is on no frontier and dominates nothing."""
    cost, quality = np.atleast_2d(cost), np.atleast_2d(quality)
    qa, qb = quality[:, :, None], quality[:, None, :]
    ca, cb = cost[:, :, None], cost[:, None, :]
    priced = ~np.isnan(ca) & ~np.isnan(cb)
    no_dearer = ~priced | (ca <= cb)
    cheaper = priced & (ca < cb)
    # dominates[r, a, b]: in resample r, candidate a dominates candidate b.
    dominates = (qa >= qb) & no_dearer & ((qa > qb) | cheaper)
    found: NDArray[np.bool_] = ~np.isnan(quality) & ~dominates.any(axis=1)
    return found


@dataclass(frozen=True)
class Resampled:
    point: list[dict[str, float]]
    """Each candidate's figures at the point estimate (all cases once)."""
    intervals: list[dict[str, Interval]]
    """Each candidate's figures with their 95 % intervals: Wilson for the proportions
    (recall, precision, failure and flip rates), the percentile bootstrap for the others."""
    on_frontier: list[bool]
    """Whether each candidate is on the frontier at the point estimates."""
    frontier_share: list[float]
    """Share of the usable resamples in which each candidate is on the frontier."""
    usable: int
    """Resamples in which every candidate's quality is defined: the shares are over these."""


BOOTSTRAPPED = ("balanced_accuracy", "cost_per_1k", "latency_p50", "latency_p95")
"""The figures whose interval is the percentile bootstrap; the others are proportions."""


def _proportions(rows: CandidateRows) -> dict[str, Interval]:
    """Wilson intervals of the proportions, as the report gives every proportion; counts are
    shares of epochs, so a case over several epochs adds a fraction to each."""
    tp, fn, fp, _ = rows.cells.sum(axis=0)
    flips = rows.flip[~np.isnan(rows.flip)]
    return {
        "recall": wilson(tp, tp + fn),
        "precision": wilson(tp, tp + fp),
        "failure_rate": wilson(rows.failure.sum(), len(rows.failure)),
        "flip_rate": wilson(flips.sum(), len(flips)),
    }


def _figures_under(
    candidates: Sequence[CandidateRows],
    prepared: Sequence[_Prepared],
    weights: Floats,
    quality: Quality,
) -> tuple[list[dict[str, Floats]], NDArray[np.bool_], NDArray[np.bool_]]:
    """Each candidate's figures under `weights` (over all cases), which of them are on the
    frontier, and in which weightings every quality is defined."""
    found = [
        _figures(p, weights if p.every_case else np.take(weights, c.cases, axis=1))
        for c, p in zip(candidates, prepared, strict=True)
    ]
    cost = np.column_stack([f["cost_per_1k"] for f in found])
    qualities = np.column_stack([f[quality] for f in found])
    defined: NDArray[np.bool_] = np.asarray(~np.isnan(qualities).any(axis=1), dtype=bool)
    return found, on_frontier(cost, qualities), defined


def resample_candidates(
    candidates: Sequence[CandidateRows],
    cases: int,
    quality: Quality,
    resampling: Resampling,
    weights: Floats | None = None,
) -> Resampled:
    """Point estimates, intervals and frontier shares of candidates over `cases` cases.

    The resamples are drawn as `resampling` says, or given as `weights` (one row per resample,
    one column per case): a small case can then be worked out by hand. Candidates are drawn
    together: the same draw of cases for every one.
    """
    if not candidates:
        return Resampled([], [], [], [], 0)
    prepared = [_prepare(c, cases) for c in candidates]
    point, point_frontier, _ = _figures_under(candidates, prepared, np.ones((1, cases)), quality)
    blocks = [weights] if weights is not None else weight_blocks(cases, resampling)
    parts: list[list[dict[str, Floats]]] = []
    frontier, usable = [], []
    for block in blocks:
        found, on, defined = _figures_under(candidates, prepared, np.asarray(block, float), quality)
        parts.append(found)
        frontier.append(on)
        usable.append(defined)
    everywhere = np.concatenate(usable)
    counted = np.concatenate(frontier)[everywhere]
    shares = counted.mean(axis=0) if len(counted) else np.full(len(candidates), np.nan)
    intervals = [
        {
            key: percentile_interval(
                float(point[i][key][0]), np.concatenate([p[i][key] for p in parts])
            )
            for key in BOOTSTRAPPED
        }
        | _proportions(c)
        for i, c in enumerate(candidates)
    ]
    return Resampled(
        point=[{key: float(v[0]) for key, v in f.items()} for f in point],
        intervals=intervals,
        on_frontier=[bool(x) for x in point_frontier[0]],
        frontier_share=[float(s) for s in shares],
        usable=int(everywhere.sum()),
    )
