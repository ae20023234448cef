"""Selective judging's plot: for each graded candidate alone, the agreement with gold on what it
would decide alone against the share it would decide, threshold by threshold of the grid, the
target 1 - alpha drawn across and the calibrated threshold marked."""

import numpy as np
from matplotlib.figure import Figure

from farejudge.comparison.escalation.results import EscalationResults, Selective
from farejudge.comparison.escalation.threshold import GRID
from farejudge.scorers.escalation import decides
from farejudge.shared.document.png import png

_TARGET, _CHOSEN = "#c62828", "#2e7d32"


def _curve(s: Selective) -> tuple[list[float], list[float]]:
    """Per grid threshold that decides any case: the share decided, and the agreement there."""
    (judge,) = s.judges
    shares, agreements = [], []
    for threshold in GRID:
        decided = decides(judge.verdict, judge.confidence, float(threshold))
        if decided.any():
            shares.append(float(decided.mean()))
            agreements.append(float((judge.verdict[decided] == judge.gold[decided]).mean()))
    return shares, agreements


def coverage(results: EscalationResults) -> bytes | None:
    """Agreement on the answers decided alone (y) against the share decided (x); None where no
    graded candidate decides anything at any threshold."""
    curves = [(s, *_curve(s)) for s in results.alone]
    curves = [(s, x, y) for s, x, y in curves if x]
    if not curves:
        return None
    fig = Figure(figsize=(7.5, 4.8))
    ax = fig.subplots()
    for s, shares, agreements in curves:
        (line,) = ax.plot(shares, agreements, marker=".", label=s.judges[0].name)
        c = s.cascade
        if c.guaranteed:
            ax.plot(
                [c.coverage.estimate],
                [c.agreement],
                marker="o",
                markersize=11,
                markerfacecolor="none",
                markeredgecolor=line.get_color(),
                linestyle="none",
            )
    target = 1 - results.options.alpha
    ax.axhline(target, color=_TARGET, linestyle=":", linewidth=1.2)
    ax.annotate(
        f"1 − α = {target:g}", (0.0, target), textcoords="offset points", xytext=(4, 4),
        fontsize=8, color=_TARGET,
    )  # fmt: skip
    lowest = min(min(y) for _, _, y in curves)
    ax.set_ylim(max(0.0, min(lowest, target) - 0.05), 1.01)
    ax.set_xlim(-0.02, 1.02)
    ax.set_xticks(np.linspace(0, 1, 5))
    ax.set(
        xlabel="share of the gold cases decided alone",
        ylabel="agreement with gold on those",
        title="Each threshold of the grid (dots); the calibrated one circled",
    )
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower left")
    return png(fig)
