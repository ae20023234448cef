"""The verdict comparison's plots: figures, flips, categories, confusion, stability."""

import math

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from farejudge.comparison.stats.intervals import Interval
from farejudge.comparison.verdicts.figures import (
    ConfusionCounts,
    GroupAccuracy,
    RunSummary,
    StabilitySummary,
)
from farejudge.comparison.verdicts.flips import Transition
from farejudge.shared.document.png import png

_GOOD, _BAD, _WARN = "#2e7d32", "#c62828", "#ef6c00"


def _errors(intervals: list[Interval]) -> tuple[list[float], list[list[float]]]:
    """Points and asymmetric error bars; an undefined end draws no bar."""
    points = [i.estimate for i in intervals]
    below = [0.0 if math.isnan(i.low) else i.estimate - i.low for i in intervals]
    above = [0.0 if math.isnan(i.high) else i.high - i.estimate for i in intervals]
    return points, [below, above]


def summary(summaries: list[RunSummary]) -> bytes:
    """Accuracy, balanced accuracy and kappa per version and model, with their intervals."""
    metrics = [
        ("Accuracy", "accuracy"),
        ("Balanced accuracy", "balanced_accuracy"),
        ("Cohen's kappa", "kappa"),
    ]
    labels = [f"{s.version} · {s.model}" for s in summaries]
    fig = Figure(figsize=(12, 0.45 * len(labels) + 1.4))
    axes = fig.subplots(1, len(metrics), sharey=True)
    y = np.arange(len(labels))[::-1]
    for ax, (title, attr) in zip(axes, metrics, strict=True):
        points, errors = _errors([getattr(s, attr) for s in summaries])
        ax.errorbar(points, y, xerr=errors, fmt="o", color="#1565c0", capsize=3)
        ax.set_title(title)
        ax.set_xlim(-1.05 if attr == "kappa" else -0.05, 1.05)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(y, labels)
    return png(fig)


def flips(transitions: list[Transition]) -> bytes | None:
    """Fixed and broken cases per pair of consecutive versions and model."""
    if not transitions:
        return None
    labels = [f"{t.before}→{t.after}\n{t.model}" for t in transitions]
    x = np.arange(len(labels))
    fig = Figure(figsize=(max(5.0, 1.4 * len(labels)), 3.2))
    ax = fig.subplots()
    ax.bar(x - 0.2, [len(t.fixed) for t in transitions], 0.4, color=_GOOD, label="fixed")
    ax.bar(x + 0.2, [len(t.broken) for t in transitions], 0.4, color=_BAD, label="broken")
    ax.set_xticks(x, labels, fontsize=8)
    ax.set_ylabel("cases")
    # Counts: with no flips at all, matplotlib would centre an empty axis on zero.
    ax.set_ylim(bottom=0)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    return png(fig)


def categories(found: list[GroupAccuracy], versions: list[str], models: list[str]) -> bytes:
    """Accuracy per category (rows) and version (columns), one panel per model."""
    names = sorted({c.group for c in found})
    fig = Figure(figsize=(2.0 + 1.3 * len(versions) * len(models), 0.35 * len(names) + 1.5))
    axes = fig.subplots(1, len(models), squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        if not names:
            # A run whose every case errored has no category to show: an empty grid would
            # leave matplotlib a singular axis.
            ax.text(0.5, 0.5, "no case was judged", ha="center", va="center", fontsize=9)
            ax.set_axis_off()
            ax.set_title(model, fontsize=9)
            continue
        grid = np.full((len(names), len(versions)), np.nan)
        for c in found:
            if c.model == model:
                grid[names.index(c.group), versions.index(c.version)] = c.accuracy.estimate
        ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
        for (row, col), value in np.ndenumerate(grid):
            if not math.isnan(value):
                # The palette is dark at both ends, where black text would not read.
                ink = "white" if value < 0.15 or value > 0.85 else "black"
                ax.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=8, color=ink)
        ax.set_xticks(range(len(versions)), versions)
        ax.set_yticks(range(len(names)), names if ax is axes[0][0] else [])
        ax.set_title(model, fontsize=9)
    return png(fig)


def confusion(confusions: list[ConfusionCounts], versions: list[str], models: list[str]) -> bytes:
    """One small matrix per version and model: gold rows, judge columns, failures apart."""
    fig = Figure(figsize=(3.2 * len(versions), 2.4 * len(models)))
    axes = fig.subplots(len(models), len(versions), squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for c in confusions:
        ax = axes[models.index(c.model)][versions.index(c.version)]
        ax.axis("on")
        grid = np.array([[c.tp, c.fn, c.failed_ungrounded], [c.fp, c.tn, c.failed_grounded]])
        right = np.array([[1, 0, 0], [0, 1, 0]])
        ax.imshow(right, cmap="RdYlGn", vmin=-0.5, vmax=1.5, alpha=0.5)
        for (row, col), value in np.ndenumerate(grid):
            ax.text(col, row, str(value), ha="center", va="center")
        ax.set_xticks(range(3), ["ungr.", "grounded", "failure"], fontsize=8)
        # Row labels on the first column only: they would run into the panel on their left.
        first = versions.index(c.version) == 0
        ax.set_yticks(range(2), ["gold ungr.", "gold grounded"] if first else [], fontsize=8)
        ax.set_title(f"{c.version} · {c.model}", fontsize=9)
    fig.supxlabel("judge verdict", fontsize=9)
    return png(fig)


def stability(summaries: list[StabilitySummary]) -> bytes:
    """Share of cases whose verdict changes between epochs, per version and model."""
    labels = [f"{s.version} · {s.model}" for s in summaries]
    points, errors = _errors([s.unstable for s in summaries])
    fig = Figure(figsize=(6, 0.45 * len(labels) + 1.2))
    ax = fig.subplots()
    y = np.arange(len(labels))[::-1]
    ax.barh(y, points, xerr=errors, color=_WARN, capsize=3)
    ax.set_yticks(y, labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of unstable cases")
    return png(fig)
