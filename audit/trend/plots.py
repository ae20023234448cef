"""The trend's plots: the rate with its intervals period by period, and the judge's
sensitivity and specificity on each period's labels against its figures when picked.

Drawn from trend.json's record, without pyplot (`comparison.document.png`).
"""

from collections.abc import Sequence

from matplotlib.axes import Axes
from matplotlib.figure import Figure as PlotFigure

from farejudge.audit.record.trend_schema import TrendRecord
from farejudge.core.decision_file import Figure
from farejudge.shared.document.png import png

_PPI, _LABELS, _JUDGE, _ALERT = "#1565c0", "#2e7d32", "#9e9e9e", "#c62828"
_SENSITIVITY, _SPECIFICITY = "#6a1b9a", "#ef6c00"


def _series(
    ax: Axes,
    xs: Sequence[float],
    figures: Sequence[Figure | None],
    color: str,
    label: str,
    marker: str,
) -> None:
    shown = [
        (x, f) for x, f in zip(xs, figures, strict=True) if f is not None and f.estimate is not None
    ]
    if not shown:
        return
    points = [x for x, _ in shown]
    estimates = [100 * (f.estimate or 0.0) for _, f in shown]
    below = [
        e - 100 * (f.low if f.low is not None else f.estimate or 0.0)
        for e, (_, f) in zip(estimates, shown, strict=True)
    ]
    above = [
        100 * (f.high if f.high is not None else f.estimate or 0.0) - e
        for e, (_, f) in zip(estimates, shown, strict=True)
    ]
    ax.errorbar(
        points, estimates, yerr=[below, above], fmt=marker, color=color, capsize=3, label=label
    )


def _periods(ax: Axes, names: list[str]) -> None:
    ax.set_xticks(range(len(names)), names, rotation=30 if len(names) > 6 else 0, fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def _legend(ax: Axes) -> None:
    """Below the axes, where it hides no interval."""
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)


def rates(record: TrendRecord) -> bytes:
    """Each period's rate by PPI++, beside the labels alone and the judge alone."""
    names = [p.period for p in record.periods]
    xs = list(range(len(names)))
    fig = PlotFigure(figsize=(max(6.0, 0.6 * len(names) + 3), 3.8))
    ax = fig.subplots()
    _series(
        ax,
        [x - 0.15 for x in xs],
        [p.judge for p in record.periods],
        _JUDGE,
        "judge alone (biased)",
        "s",
    )
    _series(
        ax,
        [x + 0.15 for x in xs],
        [p.labels_only for p in record.periods],
        _LABELS,
        "labels alone",
        "^",
    )
    _series(ax, xs, [p.rate for p in record.periods], _PPI, "PPI++", "o")
    if record.alert_above is not None:
        ax.axhline(100 * record.alert_above, color=_ALERT, linestyle=":", label="alert above")
    _periods(ax, names)
    ax.set(ylabel="ungrounded answers (%)", title="The rate, period by period")
    _legend(ax)
    return png(fig)


def agreement(record: TrendRecord) -> bytes | None:
    """Sensitivity and specificity on each period's labels, the figures at the pick as lines;
    None where no period has them."""
    periods = record.periods
    if all(p.sensitivity is None for p in periods):
        return None
    names = [p.period for p in periods]
    xs = list(range(len(names)))
    fig = PlotFigure(figsize=(max(6.0, 0.6 * len(names) + 3), 3.8))
    ax = fig.subplots()
    _series(
        ax,
        [x - 0.1 for x in xs],
        [p.sensitivity for p in periods],
        _SENSITIVITY,
        "sensitivity",
        "o",
    )
    _series(
        ax,
        [x + 0.1 for x in xs],
        [p.specificity for p in periods],
        _SPECIFICITY,
        "specificity",
        "s",
    )
    drift = record.drift
    ax.axhline(
        100 * drift.sensitivity.reference,
        color=_SENSITIVITY,
        linestyle="--",
        alpha=0.6,
        label="sensitivity at the pick",
    )
    ax.axhline(
        100 * drift.specificity.reference,
        color=_SPECIFICITY,
        linestyle="--",
        alpha=0.6,
        label="specificity at the pick",
    )
    _periods(ax, names)
    ax.set(ylabel="%", title="The judge on each period's labels (Wilson intervals)")
    _legend(ax)
    return png(fig)
