"""The graded sections: each run's ranking and calibration, and the changes between versions."""

import math

from farejudge.comparison.graded import plots
from farejudge.comparison.graded.results import GradedComparison, GradedResults, GradedSummary
from farejudge.comparison.verdicts.flips import Transition
from farejudge.shared.document.model import Section, Table, bad, good, interval, number

_ALPHA = 0.05


def _p(p: float) -> str:
    return "n/a" if math.isnan(p) else f"{p:.3g}"


def _percent(share: float) -> str:
    return f"{share * 100:.0f} %"


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{what}: {n}" for what, n in counts.items()) or "—"


def _run_rows(s: GradedSummary) -> list[str]:
    f = s.figures
    head = [s.version, s.model, str(s.graded), _counts(s.ungraded), _counts(s.sources)]
    if f is None:
        return [*head, *["n/a"] * 6]
    target = f.target_recall
    return [
        *head,
        interval(f.auc),
        interval(f.average_precision),
        interval(f.brier),
        interval(f.ece),
        number(target.threshold),
        interval(target.review_share),
    ]


def _budget_rows(s: GradedSummary) -> list[list[str]]:
    if s.figures is None:
        return []
    return [
        [
            s.version,
            s.model,
            _percent(b.share),
            str(b.reviewed),
            interval(b.recall),
            interval(b.precision),
        ]
        for b in s.figures.budgets
    ]


def _calibration_rows(s: GradedSummary) -> list[list[str]]:
    if s.figures is None:
        return []
    return [
        [
            s.version,
            s.model,
            f"{b.low:.1f} to {b.high:.1f}",
            str(b.count),
            number(b.mean_predicted),
            interval(b.observed),
        ]
        for b in s.figures.calibration
        if b.count
    ]


def _verdict_only(graded: GradedResults) -> list[str]:
    return [
        f"{s.version} on {s.model}: {s.verdict_only} of {s.graded} cases have a graded score "
        "from a single epoch, which is the verdict itself (0 or 1): their AUC is the balanced "
        "accuracy and their calibration has two bins. A graded score needs logprobs from the "
        "provider or several epochs (judge-matrix --epochs N)."
        for s in graded.summaries
        if s.verdict_only
    ]


def _runs(graded: GradedResults, models: list[str]) -> Section:
    target = _percent(graded.target_recall)
    columns = ["Version", "Model", "Graded cases", "Without a graded score", "Source"]
    columns += ["ROC-AUC", "Average precision", "Brier", "ECE"]
    columns += [f"Cut-off for {target} recall", "Review share at the cut-off"]
    return Section(
        title="Graded score: ranking and calibration",
        key="graded",
        lines=[
            "The judge's P(ungrounded) per case (the mean over its epochs; from logprobs, or "
            "the share of epochs saying ungrounded) against gold, 'ungrounded' as the "
            "positive class, over the cases with a graded score: a case without one is in no "
            "figure here and is counted with why. Each figure has a 95 % percentile bootstrap "
            "interval over cases. ROC-AUC: the chance that an ungrounded answer scores above a "
            "grounded one (ties count one half). Average precision: precision averaged over "
            "the ungrounded answers, taken by descending score. Brier: mean squared error of "
            "P; ECE: the expected calibration error over ten equal-width bins.",
            f"The cut-off is the highest P whose flagged answers (P at or above it, ties all "
            f"flagged) catch {target} of the ungrounded ones; the review share is how many "
            "answers that flags. The gate does not read any of these figures.",
        ],
        bullets=_verdict_only(graded),
        tables=[
            Table(columns, [_run_rows(s) for s in graded.summaries]),
            Table(
                ["Version", "Model", "Budget", "Answers reviewed", "Recall", "Precision"],
                [row for s in graded.summaries for row in _budget_rows(s)],
                caption="Reviewing the answers with the highest P(ungrounded) first: a share "
                "of the answers, rounded up; where the cut falls among tied scores it takes "
                "them at random, and the figures are their expected value",
            ),
            Table(
                ["Version", "Model", "P(ungrounded)", "Cases", "Mean P", "Observed share"],
                [row for s in graded.summaries for row in _calibration_rows(s)],
                caption="Calibration: per bin of P, the mean P against the share of the "
                "cases gold calls ungrounded (Wilson interval); empty bins left out",
            ),
        ],
        plot=lambda: plots.graded(graded, models),
    )


def _improved(p: float, change: float) -> bool:
    return p < _ALPHA and change > 0


def _in_words(c: GradedComparison, t: Transition | None) -> str | None:
    """A sentence where the ranking and the accuracy tell different stories."""
    if t is None or c.paired == 0:
        return None
    auc, accuracy = c.delong.change.estimate, t.accuracy_change.estimate
    ranked = f"AUC {number(auc, signed=True)}, DeLong p = {_p(c.delong.p_value)}"
    verdicts = f"accuracy {number(accuracy, signed=True)}, exact McNemar p = {_p(t.p_value)}"
    where = f"{c.before} → {c.after} with {c.model}"
    if _improved(c.delong.p_value, auc) and not _improved(t.p_value, accuracy):
        return good(
            f"{where}: the graded score ranks ungrounded answers better ({ranked}) while "
            f"accuracy did not improve ({verdicts}): the judge tells them apart better, but "
            "not yet at its verdict's cut-off."
        )
    if _improved(t.p_value, accuracy) and not _improved(c.delong.p_value, auc):
        return bad(
            f"{where}: accuracy improved ({verdicts}) while the graded score's ranking did "
            f"not ({ranked}): the verdicts moved, but the judge does not separate ungrounded "
            "answers from grounded ones any better."
        )
    return None


def _detectable(c: GradedComparison) -> str:
    if math.isnan(c.auc_detectable_change):
        return "n/a"
    return f"{c.auc_detectable_change:.2f}"


def _comparisons(graded: GradedResults, transitions: list[Transition]) -> Section:
    by_runs = {(t.model, t.before, t.after): t for t in transitions}
    rows, sentences = [], []
    for c in graded.comparisons:
        t = by_runs.get((c.model, c.before, c.after))
        d = c.delong
        rows.append(
            [
                f"{c.before} → {c.after}",
                c.model,
                str(c.paired) + (f" ({c.unpaired} without a score)" if c.unpaired else ""),
                f"{number(d.auc_before)} → {number(d.auc_after)}",
                interval(d.change, signed=True),
                _p(d.p_value),
                _detectable(c),
                interval(c.brier.change, signed=True),
                _p(c.brier.p_value),
                interval(t.accuracy_change, signed=True) if t else "n/a",
                _p(t.p_value) if t else "n/a",
            ]
        )
        sentence = _in_words(c, t)
        if sentence:
            sentences.append(sentence)
    columns = ["Versions", "Model", "Paired cases", "ROC-AUC", "AUC change", "DeLong p"]
    columns += ["Detectable AUC change", "Brier change", "Paired t p"]
    columns += ["Accuracy change", "Exact McNemar p"]
    return Section(
        title="Graded score between versions",
        key="graded_changes",
        lines=[
            "Between consecutive versions with the same judge model, over the cases with "
            "identical content in both runs and a graded score in both. AUC change: DeLong's "
            "test for two correlated ROC curves (fast DeLong), its 95 % interval from the "
            "DeLong variance. Detectable AUC change: the smallest change these cases detect "
            "(alpha 0.05, 80 % power), a normal approximation that takes the DeLong deviation "
            "observed here. Brier change (negative is better): paired bootstrap interval over "
            "cases, and a paired t-test on the per-case squared errors. Accuracy change and "
            "McNemar are the verdicts' (fixed and broken cases)."
        ],
        tables=[Table(columns, rows)] if rows else [],
        bullets=sentences
        or (
            ["the ranking and the accuracy tell the same story in every comparison"]
            if rows
            else ["only one version per model: nothing to compare"]
        ),
    )


def graded_sections(
    graded: GradedResults, transitions: list[Transition], models: list[str]
) -> list[Section]:
    """`transitions`: the verdicts' flips between the same versions, whose accuracy change is
    shown beside the graded scores'; `models`: the judge models in the report's order."""
    if not any(s.graded for s in graded.summaries):
        return [
            Section(
                title="Graded score",
                key="graded_none",
                lines=[
                    "No case in these logs has a graded score P(ungrounded): logs written "
                    "before graded scores carry none. Ranking and calibration figures need one."
                ],
            )
        ]
    return [_runs(graded, models), _comparisons(graded, transitions)]
