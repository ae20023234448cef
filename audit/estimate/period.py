"""One period's audit: the judged logs, the sample and its labels → audit.json's record.

The sample must have been drawn from the drafts the judge judged (their population hash), and
each of its labelled drafts judged (an outage there is judged again, not estimated around).
The judge's prediction for each draft is its verdict or its P(ungrounded); a judge failure and
an unjudged draft (an outage elsewhere in the period) both predict the judge's mean over the
answered drafts: the failure rule, a fixed function of the judge's output, which the sample
was drawn independently of, so the interval stays valid.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from farejudge.audit.estimate.statistics import (
    PeriodEstimate,
    estimate_by_category,
    estimate_period,
)
from farejudge.audit.inputs.judged import TASK, Judged
from farejudge.audit.inputs.labelled import SampleLabels
from farejudge.audit.record.formatting import percent
from farejudge.audit.record.schema import (
    Agreement,
    Alert,
    AtPick,
    AuditRecord,
    Category,
    Estimate,
    Judge,
    JudgeRate,
    LabelsOnly,
    Population,
    Prediction,
    Rate,
    RaterOf,
    RaterPair,
    Raters,
    Sample,
    SampleStratum,
    figure,
    number,
)
from farejudge.audit.stats.agreement import judge_agreement
from farejudge.audit.stats.arrays import Floats
from farejudge.audit.stats.design import AuditSample
from farejudge.audit.stats.drift import rate_alert
from farejudge.core.decision_file import Figure
from farejudge.core.errors import InputError
from farejudge.core.intervals import Interval
from farejudge.raters import cohen_kappa, krippendorff_alpha_interval

VERDICT_CUT = 0.5
TIE = 0.5
"""The label of a draft its annotators split evenly: the mean of as many 1s as 0s."""
STRATIFIED_AGREEMENT = (
    "not measured: a stratified sample's labels are no uniform draw of the answers (it labels "
    "more of what the judge flags, or every answer it escalated), so they misstate its "
    "sensitivity and specificity; the drift detector leaves the period out"
)


@dataclass(frozen=True)
class PeriodInputs:
    """What one period's audit is made from."""

    period: str
    judged: Judged
    sample: AuditSample
    sample_file: str
    labels: SampleLabels
    at_pick: AtPick | None
    prediction: Prediction | None
    """None: graded where the judge was picked at a cut-off on P(ungrounded), else its
    verdict."""
    alpha: float
    alert_above: float | None


def check_population(sample: AuditSample, sample_file: str, judged: Judged) -> None:
    """An InputError unless the sample was drawn from the drafts the logs judged."""
    if sample.population_hash != judged.population_sha256:
        raise InputError(
            [
                f"{sample_file}: drawn from {sample.population:,} drafts hashing to "
                f"{sample.population_hash[:12]}, but {judged.logs[-1]} judged "
                f"{judged.population:,} drafts hashing to {judged.population_sha256[:12]}: "
                "the sample of another drafts file (another period?)"
            ]
        )


def sampled_content(sample: AuditSample, judged: Judged) -> dict[str, str]:
    """Each sampled draft's content hash as judged, or an InputError naming a sampled draft the
    judge did not judge (an outage: `inspect eval-retry` judges it again)."""
    where = judged.positions(sample.ids)
    unjudged = [draft for draft in sample.ids if judged.errored[where[draft]]]
    if unjudged:
        more = f" and {len(unjudged) - 1} more" if len(unjudged) > 1 else ""
        raise InputError(
            [
                f"{judged.logs[-1]}: sampled draft {unjudged[0]!r}{more} errored in the "
                f"{TASK} run (an outage, not the judge): `inspect eval-retry LOG` judges it "
                "again"
            ]
        )
    return {draft: judged.content_of(where[draft]) for draft in sample.ids}


def _strata(sample: AuditSample, labelled: Sequence[str]) -> list[SampleStratum]:
    """A stratified sample's strata with their draws and labels; none for a uniform one."""
    if sample.design == "uniform":
        return []
    drawn = Counter(sample.stratum_of)
    labels = Counter(sample.strata_of(labelled))
    return [
        SampleStratum(
            name=s.name, population=s.population, drawn=drawn[s.name], labelled=labels[s.name]
        )
        for s in sample.strata
    ]


def _agreement_note(agreement: Agreement | None, rated: Raters | None) -> str | None:
    if agreement is None:
        return STRATIFIED_AGREEMENT
    if rated is None or not rated.disagreements:
        return None
    ties = f"; the {rated.ties} they split evenly have none and are left out" if rated.ties else ""
    return (
        f"against each answer's majority label: the annotators differ on {rated.disagreements} "
        f"answers{ties}"
    )


def raters(labels: SampleLabels, alpha: float) -> Raters | None:
    """The annotators' agreement on the sample; None with one annotator."""
    matrix = labels.by_annotator
    names = labels.annotators
    if len(names) < 2:
        return None
    counted = (~np.isnan(matrix)).sum(axis=1)
    several = matrix[counted >= 2]
    split = int(np.sum(np.nanmax(several, axis=1) != np.nanmin(several, axis=1)))
    pairs = []
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            both = ~np.isnan(matrix[:, a]) & ~np.isnan(matrix[:, b])
            kappa = cohen_kappa(matrix[:, a], matrix[:, b])
            pairs.append(
                RaterPair(
                    first=names[a],
                    second=names[b],
                    shared=int(both.sum()),
                    agreed=int(np.sum(matrix[both, a] == matrix[both, b])),
                    kappa=number(kappa),
                )
            )
    found: Interval = krippendorff_alpha_interval(matrix, level=1 - alpha)
    return Raters(
        annotators=[
            RaterOf(annotator=name, file=file, labelled=count)
            for name, file, count in zip(
                names, labels.annotator_files, labels.labelled, strict=True
            )
        ],
        pairs=pairs,
        alpha=Figure.of(found),
        multiply_labelled=len(several),
        disagreements=split,
        ties=int(np.sum(labels.values == TIE)),
    )


def _prediction(inputs: PeriodInputs) -> Prediction:
    if inputs.prediction is not None:
        return inputs.prediction
    at_cut_off = inputs.at_pick is not None and inputs.at_pick.operating_point == "cut-off"
    return "graded" if at_cut_off else "verdict"


def _predictions(judged: Judged, prediction: Prediction) -> tuple[Floats, int]:
    """Each draft's prediction (NaN where the judge gave none), and how many answered drafts
    took their verdict for want of a P(ungrounded)."""
    if prediction == "verdict":
        return judged.verdict, 0
    missing = np.isnan(judged.p_ungrounded) & ~np.isnan(judged.verdict)
    found: Floats = np.where(missing, judged.verdict, judged.p_ungrounded)
    return found, int(missing.sum())


def _estimate(found: PeriodEstimate) -> Estimate:
    only = found.labels_only
    wilson, exact = only.wilson(), only.clopper_pearson()
    return Estimate(
        rate=Rate(
            figure=figure(found.rate.interval),
            se=found.rate.se,
            lam=found.rate.lam,
            disagreements=found.disagreements,
            widened=found.widened,
        ),
        labels_only=LabelsOnly(
            mean=figure(only.classical.interval),
            wilson=None if wilson is None else figure(wilson),
            clopper_pearson=None if exact is None else figure(exact),
            ungrounded=only.ungrounded,
            labels=only.labels,
        ),
        judge=JudgeRate(
            figure=figure(found.judge.interval),
            answered=found.judge.answered,
            caveat=found.judge.CAVEAT,
        ),
        effective_labels=number(found.effective_labels),
    )


def _cut(inputs: PeriodInputs, prediction: Prediction) -> float:
    at_pick = inputs.at_pick
    if prediction == "graded" and at_pick is not None and at_pick.threshold is not None:
        return at_pick.threshold
    return VERDICT_CUT


def summary(record: AuditRecord) -> list[str]:
    """The period's answer in sentences: the rate, what it rests on, the alert."""
    rate = record.estimate.rate.figure
    judge = record.estimate.judge.figure
    labels = record.sample.labelled
    lines = [
        f"{record.period}: {percent(rate.estimate)} of the assistant's "
        f"{record.population.drafts:,} answers were ungrounded, "
        f"{round(100 * (1 - record.alpha))} % interval [{percent(rate.low)}, "
        f"{percent(rate.high)}], from the judge's verdicts on every answer corrected by "
        f"{labels} labels (PPI++).",
        f"The judge's own rate is {percent(judge.estimate)}: biased by its errors, not an "
        "estimate of the truth.",
    ]
    rated = record.raters
    if rated is not None:
        lines.append(
            f"Each answer's label is the mean of its annotators' ({len(rated.annotators)} "
            "annotators): the rate is the share the average annotator would call ungrounded. "
            f"They differ on {rated.disagreements} of the {rated.multiply_labelled} answers "
            "two or more labelled."
        )
    gained = record.estimate.effective_labels
    if gained is not None:
        lines.append(
            f"The judge is worth {gained:,.0f} labels: the labels alone would need that many "
            f"for this interval's width ({gained / labels:.2f}x the {labels} given)."
        )
    alert = record.alert
    if alert.above is not None:
        lines.append(
            f"ALERT: the interval lies above {percent(alert.above)}."
            if alert.raised
            else f"No alert: the interval does not lie above {percent(alert.above)}."
        )
    return lines


def audit_record(inputs: PeriodInputs) -> AuditRecord:
    """The period's audit.json record, or an InputError naming what cannot be estimated."""
    judged, sample, labels = inputs.judged, inputs.sample, inputs.labels
    check_population(sample, inputs.sample_file, judged)
    prediction = _prediction(inputs)
    predictions, graded_missing = _predictions(judged, prediction)
    where = judged.positions(labels.ids)
    positions = np.array([where[draft] for draft in labels.ids], dtype=np.int64)
    try:
        weights = sample.weights(labels.ids)
    except ValueError as err:
        raise InputError([f"{inputs.sample_file}: {err}"]) from None
    found = estimate_period(predictions, positions, labels.values, inputs.alpha, weights)
    by_category = estimate_by_category(
        predictions, positions, labels.values, judged.categories, inputs.alpha, weights
    )
    cut = _cut(inputs, prediction)
    rated = raters(labels, inputs.alpha)
    agreement: Agreement | None = None
    if sample.design == "uniform":
        # Each draft's majority label; a draft its annotators split evenly has none.
        kept = labels.values != TIE
        agreed = judge_agreement(
            np.round(labels.values[kept]),
            predictions[positions][kept],
            cut,
            inputs.alpha,
        )
        agreement = Agreement(
            sensitivity=figure(agreed.sensitivity),
            specificity=figure(agreed.specificity),
            positives=agreed.positives,
            misses=agreed.misses,
            negatives=agreed.negatives,
            false_alarms=agreed.false_alarms,
            failures=agreed.failures,
        )
    raised = inputs.alert_above is not None and rate_alert(found.rate.interval, inputs.alert_above)
    failures = int(judged.failed.sum())
    unjudged = int(judged.errored.sum())
    record = AuditRecord(
        period=inputs.period,
        alpha=inputs.alpha,
        judge=Judge(
            model=judged.model,
            prompt_version=judged.prompt_version,
            graded=judged.graded,
            logs=judged.logs,
            prediction=prediction,
            cut=cut,
            graded_missing=graded_missing,
        ),
        population=Population(
            drafts=judged.population,
            population_sha256=judged.population_sha256,
            answered=judged.population - failures - unjudged,
            judge_failures=failures,
            unjudged=unjudged,
            failure_fill=found.failure_fill,
        ),
        sample=Sample(
            file=inputs.sample_file,
            design=sample.design,
            seed=sample.seed,
            drawn=len(sample.ids),
            labelled=len(labels.ids),
            unlabelled=len(sample.ids) - len(labels.ids),
            labels_files=labels.files,
            annotators=labels.annotators,
            strata=_strata(sample, labels.ids),
        ),
        estimate=_estimate(found),
        categories=[
            Category(
                category=c.category,
                population=c.population,
                labels=c.labels,
                estimate=None if c.estimate is None else _estimate(c.estimate),
            )
            for c in by_category
        ],
        agreement=agreement,
        agreement_note=_agreement_note(agreement, rated),
        at_pick=inputs.at_pick,
        alert=Alert(above=inputs.alert_above, raised=raised),
        summary=[],
        raters=rated,
    )
    return record.model_copy(update={"summary": summary(record)})
