"""The deploy decision's plot: each candidate's cost against its quality, the pick marked.

Intervals on both axes, the frontier drawn as a staircase.
"""

import math

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from farejudge.comparison.deploy.candidates import Candidate, Deployment
from farejudge.shared.document.png import png

_FRONTIER, _POINT, _PICK = "#2e7d32", "#1565c0", "#c62828"
_LOG_SPAN = 20
"""Costs spanning more than this factor are drawn on a log scale."""


def _bar(estimate: float, low: float, high: float) -> list[list[float]]:
    """An asymmetric error bar; an undefined end draws none. Clipped at zero: a figure that
    is the same on every case (a fixed price a call) has ends a rounding error off it."""
    below = 0.0 if math.isnan(low) else max(0.0, estimate - low)
    above = 0.0 if math.isnan(high) else max(0.0, high - estimate)
    return [[below], [above]]


def _short(model: str) -> str:
    return model.split("/")[-1]


def _label(c: Candidate) -> str:
    if c.selective:
        stages = [
            f"panel of {len(j.members)}" if j.members else _short(j.model)
            for j in c.selective.judges
        ]
        judge = " → ".join([*stages, "person"])
    else:
        judge = f"panel of {len(c.members)}" if c.members else _short(c.model)
    return f"{c.version} · {judge} ({c.frontier_share * 100:.0f} %)"


def frontier(d: Deployment) -> bytes | None:
    """Cost per 1,000 answers (x) against quality (y); None where no cost is known."""
    drawn = [c for c in d.candidates if not math.isnan(c.estimate("cost_per_1k"))]
    drawn = [c for c in drawn if not math.isnan(c.estimate(d.quality))]
    if not drawn:
        return None
    fig = Figure(figsize=(7.5, 4.8))
    ax = fig.subplots()
    drawn.sort(key=lambda c: (c.estimate("cost_per_1k"), c.estimate(d.quality)))
    for rank, c in enumerate(drawn):
        cost, score = c.figures["cost_per_1k"], c.figures[d.quality]
        ax.errorbar(
            [cost.estimate],
            [score.estimate],
            xerr=_bar(cost.estimate, cost.low, cost.high),
            yerr=_bar(score.estimate, score.low, score.high),
            # A judge that escalates to people, square: its cost holds their reviews.
            fmt="s" if c.selective else "o",
            color=_FRONTIER if c.on_frontier else _POINT,
            capsize=3,
        )
        # Selective candidates are many (each judge alone, each cascade): only those that
        # matter are named, the rest left as squares to see the frontier by.
        if c.selective and not (c.on_frontier or c is d.pick):
            continue
        # Above and below in turn: neighbours by cost often share a quality.
        ax.annotate(
            _label(c),
            (cost.estimate, score.estimate),
            textcoords="offset points",
            xytext=(6, 6 if rank % 2 == 0 else -13),
            fontsize=8,
        )
    if any(c.selective for c in drawn):
        ax.plot([], [], "s", color=_POINT, label="a judge that escalates to people (→ person)")
    _draw_frontier(ax, [c for c in drawn if c.on_frontier], d.quality)
    _mark(ax, d.pick, drawn, d.quality, "*", "pick")
    if d.prefer_runner_up:
        _mark(ax, d.preferred, drawn, d.quality, "o", "preferred (not significantly worse)")
    costs = [c.estimate("cost_per_1k") for c in drawn]
    if min(costs) > 0 and max(costs) / min(costs) > _LOG_SPAN:
        ax.set_xscale("log")
    quality = "balanced accuracy" if d.quality == "balanced_accuracy" else "recall"
    ax.set(
        xlabel="cost per 1,000 answers ($)",
        ylabel=f"{quality} at the operating point",
        title="Cost against quality: the frontier in green, its share of resamples in brackets",
    )
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="lower right")
    return png(fig)


def _mark(
    ax: Axes, c: Candidate | None, drawn: list[Candidate], quality: str, marker: str, what: str
) -> None:
    if c is None or c not in drawn:
        return
    ax.plot(
        [c.estimate("cost_per_1k")],
        [c.estimate(quality)],
        marker=marker,
        markersize=18,
        markerfacecolor=_PICK if marker == "*" else "none",
        markeredgecolor=_PICK,
        linestyle="none",
        label=f"{what}: {c.name}",
    )


def _draw_frontier(ax: Axes, on: list[Candidate], quality: str) -> None:
    """The frontier as a staircase, cheapest first: from each point, quality holds until the
    next dearer point raises it."""
    if len(on) < 2:
        return
    ranked = sorted(on, key=lambda c: (c.estimate("cost_per_1k"), c.estimate(quality)))
    xs = [c.estimate("cost_per_1k") for c in ranked]
    ys = [c.estimate(quality) for c in ranked]
    ax.step(xs, ys, where="post", color=_FRONTIER, linewidth=1.2, alpha=0.8)
