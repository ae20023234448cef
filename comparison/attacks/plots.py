"""The adversarial suite's plot: each family's attack success per run, with its interval."""

import math

import numpy as np
from matplotlib.figure import Figure

from farejudge.comparison.attacks.results import RunAttacks
from farejudge.shared.document.png import png


def attack_success(runs: list[RunAttacks]) -> bytes | None:
    """One row per family, one marker per run, the 95 % Wilson interval as its bar."""
    families = sorted({f for r in runs for f in r.families})
    if not families:
        return None
    fig = Figure(figsize=(8, 0.32 * len(families) + 1.6))
    ax = fig.subplots()
    y = np.arange(len(families))[::-1]
    step = 0.8 / max(1, len(runs))
    for i, run in enumerate(runs):
        found = [run.families.get(f) for f in families]
        points, below, above, rows = [], [], [], []
        for row, figure in zip(y, found, strict=True):
            if figure is None or math.isnan(figure.success.estimate):
                continue
            s = figure.success
            points.append(s.estimate)
            below.append(s.estimate - s.low)
            above.append(s.high - s.estimate)
            rows.append(row + 0.4 - step * (i + 0.5))
        ax.errorbar(
            points,
            rows,
            xerr=[below, above],
            fmt="o",
            capsize=2,
            label=f"{run.version} · {run.model}",
        )
    ax.set_yticks(y, families)
    ax.set_xlim(-0.05, 1.05)
    ax.set_xlabel("attack success (of the parents judged right, the share whose attack fooled it)")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    return png(fig)
