"""A period's plots: the rate's intervals by each method, and by category.

Drawn from audit.json's record, without pyplot (`comparison.document.png`).
"""

from matplotlib.axes import Axes
from matplotlib.figure import Figure as PlotFigure

from farejudge.audit.record.schema import AuditRecord, Estimate
from farejudge.core.decision_file import Figure
from farejudge.shared.document.png import png

_PPI, _LABELS, _JUDGE, _ALERT = "#1565c0", "#2e7d32", "#9e9e9e", "#c62828"


def _interval(ax: Axes, y: float, figure: Figure | None, color: str, hatched: bool = False) -> None:
    if figure is None or figure.estimate is None:
        return
    low = figure.estimate if figure.low is None else figure.low
    high = figure.estimate if figure.high is None else figure.high
    ax.errorbar(
        [100 * figure.estimate],
        [y],
        xerr=[[100 * (figure.estimate - low)], [100 * (high - figure.estimate)]],
        fmt="s" if hatched else "o",
        color=color,
        capsize=4,
        linestyle="--" if hatched else "-",
        mfc="white" if hatched else color,
    )


def _threshold(ax: Axes, above: float | None) -> None:
    if above is not None:
        ax.axvline(100 * above, color=_ALERT, linestyle=":", label=f"alert above {100 * above:g} %")
        ax.legend(fontsize=8, loc="lower right")


def rates(record: AuditRecord) -> bytes:
    """The rate by PPI++, by the labels alone and by the judge alone, each with its interval."""
    estimate = record.estimate
    rows: list[tuple[str, Figure | None, str, bool]] = [
        ("the judge's own rate (biased)", estimate.judge.figure, _JUDGE, True),
        (
            "labels alone (Wilson)",
            estimate.labels_only.wilson or estimate.labels_only.mean,
            _LABELS,
            False,
        ),
        ("PPI++: judge and labels", estimate.rate.figure, _PPI, False),
    ]
    fig = PlotFigure(figsize=(7.5, 2.6))
    ax = fig.subplots()
    for y, (_, figure, color, hatched) in enumerate(rows):
        _interval(ax, y, figure, color, hatched)
    ax.set_yticks(range(len(rows)), [name for name, *_ in rows])
    ax.set_ylim(-0.6, len(rows) - 0.4)
    _threshold(ax, record.alert.above)
    level = round(100 * (1 - record.alpha))
    ax.set(xlabel="ungrounded answers (%)", title=f"{record.period}: the rate, {level} % intervals")
    ax.grid(axis="x", alpha=0.3)
    return png(fig)


def categories(record: AuditRecord) -> bytes | None:
    """Each category's rate by PPI++ beside the judge's own; None with fewer than 2."""
    drawn = [(c.category, c.estimate) for c in record.categories if c.estimate is not None]
    if len(drawn) < 2:
        return None
    fig = PlotFigure(figsize=(7.5, 1.2 + 0.45 * len(drawn)))
    ax = fig.subplots()
    for y, (_, found) in enumerate(drawn):
        estimate: Estimate = found
        _interval(ax, y - 0.15, estimate.judge.figure, _JUDGE, hatched=True)
        _interval(ax, y + 0.15, estimate.rate.figure, _PPI)
    ax.set_yticks(range(len(drawn)), [name for name, _ in drawn])
    _threshold(ax, record.alert.above)
    ax.set(
        xlabel="ungrounded answers (%)",
        title="By category: PPI++ (blue) and the judge's own rate (grey, biased)",
    )
    ax.grid(axis="x", alpha=0.3)
    return png(fig)
