"""The graded score's plot: per judge model, ROC, precision-recall and reliability curves."""

from matplotlib.figure import Figure

from farejudge.comparison.graded.results import GradedResults
from farejudge.shared.document.png import png

_TICKS = [0.0, 0.25, 0.5, 0.75, 1.0]


def graded(results: GradedResults, models: list[str]) -> bytes | None:
    """Per judge model (rows, in the order of `models`): ROC, precision-recall and
    reliability, one line per version."""
    drawn = [s for s in results.summaries if s.figures and s.figures.curves.recall]
    if not drawn:
        return None
    models = [m for m in models if any(s.model == m for s in drawn)]
    fig = Figure(figsize=(13, 3.9 * len(models)))
    axes = fig.subplots(len(models), 3, squeeze=False)
    fig.subplots_adjust(left=0.06, right=0.98, bottom=0.5 / len(models) / 3.9 + 0.02, wspace=0.28)
    fig.subplots_adjust(hspace=0.45, top=1 - 0.35 / (3.9 * len(models)))
    for row, model in zip(axes, models, strict=True):
        roc, pr, reliability = row
        for s in (s for s in drawn if s.model == model):
            assert s.figures is not None
            f, curves = s.figures, s.figures.curves
            roc.plot(
                curves.false_positive_rate,
                curves.true_positive_rate,
                label=f"{s.version} (AUC {f.auc.estimate:.2f})",
            )
            pr.step(
                curves.recall,
                curves.precision,
                where="post",
                label=f"{s.version} (AP {f.average_precision.estimate:.2f})",
            )
            full = [b for b in f.calibration if b.count]
            reliability.plot(
                [b.mean_predicted for b in full],
                [b.observed.estimate for b in full],
                marker="o",
                label=f"{s.version} (ECE {f.ece.estimate:.2f})",
            )
        roc.plot([0, 1], [0, 1], color="#999", linestyle=":", linewidth=1)
        reliability.plot([0, 1], [0, 1], color="#999", linestyle=":", linewidth=1)
        # Precision of flagging every answer: the floor a ranking should clear.
        first = next(s.figures for s in drawn if s.model == model and s.figures)
        pr.axhline(first.ungrounded / first.cases, color="#999", linestyle=":", linewidth=1)
        roc.set(xlabel="false positive rate", ylabel="true positive rate", title=f"ROC · {model}")
        pr.set(xlabel="recall", ylabel="precision", title=f"Precision-recall · {model}")
        reliability.set(
            xlabel="mean P(ungrounded) in bin",
            ylabel="share gold ungrounded",
            title=f"Reliability · {model}",
        )
        for ax in row:
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xticks(_TICKS)
            ax.set_yticks(_TICKS)
            ax.grid(alpha=0.3)
            ax.legend(fontsize=8, loc="lower right")
    # Fixed margins: a tight bounding box would draw the nine panels twice over.
    return png(fig, dpi=100, tight=False)
