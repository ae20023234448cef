"""audit.json and trend.json: their schemas, as `judge-audit schema` prints them.

audit.json is one period's estimate with everything needed to read and defend it; trend.json
the periods side by side with the alerts. A figure is decision.json's: an estimate and its
interval (here at the audit's level, 1 - alpha), null where undefined, never NaN, so any JSON
reader takes it.
"""

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from farejudge.comparison.deploy.decision import Figure
from farejudge.comparison.stats.intervals import Interval

Prediction = Literal["verdict", "graded"]
Design = Literal["uniform", "stratified"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def number(x: float) -> float | None:
    """`x`, or None where it is NaN."""
    return None if math.isnan(x) else float(x)


def figure(i: Interval) -> Figure:
    """An audit interval (of a share: a rate, a sensitivity) as its record writes it, within
    [0, 1]: a normal interval over few labels reaches past them, and no share does. Clipping
    changes no coverage, as the true share is inside."""

    def share(x: float) -> float | None:
        return None if math.isnan(x) else min(1.0, max(0.0, float(x)))

    return Figure(estimate=share(i.estimate), low=share(i.low), high=share(i.high))


def interval(f: Figure) -> Interval:
    """A record's figure as an interval again: NaN where it is null."""

    def value(x: float | None) -> float:
        return math.nan if x is None else x

    return Interval(value(f.estimate), value(f.low), value(f.high))


class Rate(_Strict):
    """The ungrounded rate by PPI++ (power-tuned), with its normal interval."""

    figure: Figure
    se: float
    lam: float
    """The power-tuning factor: 0 is the labels alone, 1 plain PPI."""
    disagreements: int
    """Labelled answers whose verdict is not the label (judge failures excluded)."""
    widened: bool
    """Whether the interval was widened for having fewer than 20 disagreements."""


class LabelsOnly(_Strict):
    """The rate from the labels alone, the judge ignored."""

    mean: Figure
    """The labels' (weighted) mean with its normal interval."""
    wilson: Figure | None
    """Wilson's interval on the count; null for a stratified (weighted) sample."""
    clopper_pearson: Figure | None
    """Clopper-Pearson's exact interval on the count; null for a stratified sample."""
    ungrounded: int
    labels: int


class JudgeRate(_Strict):
    """The judge's own rate over the answered answers: biased by its errors."""

    figure: Figure
    answered: int
    caveat: str


class Estimate(_Strict):
    rate: Rate
    labels_only: LabelsOnly
    judge: JudgeRate
    effective_labels: float | None
    """n x the labels-only variance over the PPI variance: the labels alone would need this
    many for the same width. Null where the PPI variance is 0."""


class Category(_Strict):
    category: str
    population: int
    labels: int
    estimate: Estimate | None
    """Null where the category has fewer than 2 labels."""


class Agreement(_Strict):
    """The judge's sensitivity and specificity on the period's labels (Wilson intervals)."""

    sensitivity: Figure
    specificity: Figure
    positives: int
    """Answered labelled answers labelled ungrounded."""
    misses: int
    negatives: int
    """Answered labelled answers labelled grounded."""
    false_alarms: int
    failures: int
    """Labelled answers the judge failed on: in neither figure."""


class AtPick(_Strict):
    """What the judge measured when it was picked, from decision.json."""

    decision: str
    version: str
    model: str
    operating_point: Literal["verdict", "cut-off", "confidence threshold"]
    threshold: float | None
    cases: int
    sensitivity: Figure
    """decision.json's recall, with its interval."""
    specificity: float
    """2 x balanced accuracy - recall (decision.json gives no interval for it)."""
    balanced_accuracy: Figure
    failure_rate: Figure


class Judge(_Strict):
    """The run that judged the period, and how its output is read."""

    model: str
    prompt_version: str
    graded: str
    """The run's `-T graded=` option."""
    logs: list[str]
    prediction: Prediction
    """What the estimate takes as the judge's prediction: its verdict (1 or 0), or its
    P(ungrounded) (its verdict where it gives none)."""
    cut: float
    """A prediction at or above it flags the answer (for sensitivity and specificity)."""
    graded_missing: int
    """With the graded prediction: answered drafts with no P(ungrounded), predicted by their
    verdict."""


class Population(_Strict):
    drafts: int
    population_sha256: str
    answered: int
    judge_failures: int
    """Replies with no verdict that can be read."""
    unjudged: int
    """Drafts whose run errored (an outage): no prediction, and never a judge failure."""
    failure_fill: float
    """What each judge failure and unjudged draft predicts: the judge's mean prediction over
    the answered drafts (the failure rule)."""


class SampleStratum(_Strict):
    """A stratum of a stratified sample: its answers in the period, drawn and labelled."""

    name: str
    """`flagged` or `passed` (the judge's verdicts), or `escalated` or `decided` (a judge
    held to a confidence threshold)."""
    population: int
    drawn: int
    labelled: int


class Sample(_Strict):
    file: str
    design: Design
    seed: int
    drawn: int
    labelled: int
    unlabelled: int
    """Drawn and not labelled: left out, as missing at random (within its stratum)."""
    labels_files: list[str]
    annotators: list[str]
    strata: list[SampleStratum] = []
    """A stratified sample's strata; empty for a uniform one."""


class Alert(_Strict):
    above: float | None
    """The threshold given (`--alert-above`); null if none was."""
    raised: bool
    """Whether the rate's interval lies wholly above it."""


class AuditRecord(_Strict):
    """One period's audit: audit.json."""

    format: Literal[1] = 1
    """Bumped when a field changes meaning: trend refuses audit.json files of another."""
    period: str
    alpha: float
    judge: Judge
    population: Population
    sample: Sample
    estimate: Estimate
    categories: list[Category]
    agreement: Agreement | None
    """Null for a stratified sample, whose labels overstate sensitivity and understate
    specificity."""
    agreement_note: str | None
    at_pick: AtPick | None
    """Null when no decision.json was given."""
    alert: Alert
    summary: list[str]
    """The report's answer, sentence by sentence."""


class TrendPeriod(_Strict):
    period: str
    file: str
    model: str
    prompt_version: str
    drafts: int
    labels: int
    rate: Figure
    labels_only: Figure
    judge: Figure
    sensitivity: Figure | None
    specificity: Figure | None
    in_drift: bool
    """Whether the drift detector counts this period (the newest judge's, uniform labels)."""
    above: bool | None
    """Whether its rate's interval lies above `--alert-above`; null without it."""


class DriftCheck(_Strict):
    figure: Literal["sensitivity", "specificity"]
    reference: float
    log_statistic: list[float]
    """The natural log of the Shiryaev-Roberts statistic after each period counted."""
    log_threshold: float
    alarm_period: str | None
    """The first period whose statistic reached the threshold; null if none did."""


class Drift(_Strict):
    version: str
    model: str
    decision: str
    periods: list[str]
    """The periods counted, oldest first: the newest judge's, with uniform labels."""
    alpha: float
    horizon: int
    sensitivity: DriftCheck
    specificity: DriftCheck
    alarm: bool


class TrendRecord(_Strict):
    """The periods side by side, and the alerts: trend.json."""

    format: Literal[1] = 1
    periods: list[TrendPeriod]
    alert_above: float | None
    rate_alert: bool
    """Whether the newest period's rate interval lies above `alert_above`."""
    drift: Drift
    alerts: list[str] = Field(description="Each alert raised, in words; empty for none")


SCHEMAS: dict[str, type[BaseModel]] = {"audit": AuditRecord, "trend": TrendRecord}
