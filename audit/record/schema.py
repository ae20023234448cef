"""audit.json's schema, as `judge-audit schema audit` prints it, and what the audit's records
share (trend.json's is `trend_schema`).

audit.json is one period's estimate with everything needed to read and defend it. A figure is
decision.json's: an estimate and its interval (here at the audit's level, 1 - alpha), null where
undefined, never NaN, so any JSON reader takes it.
"""

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from farejudge.core.decision_file import Figure
from farejudge.core.errors import InputError
from farejudge.core.intervals import Interval
from farejudge.core.text_input import dotted, read_text, shown

Prediction = Literal["verdict", "graded"]
Design = Literal["uniform", "stratified"]

# What each number means, checked as a file is read (`judge-audit trend` and `plan` read
# audit.json, every verb decision.json): a count, a share, a level.
Count = Annotated[int, Field(ge=0)]
ShareValue = Annotated[float, Field(ge=0, le=1)]
Level = Annotated[float, Field(gt=0, lt=1)]
NonNegative = Annotated[float, Field(ge=0)]

_M = TypeVar("_M", bound=BaseModel)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _share(f: Figure) -> Figure:
    """A share's figure (a rate, a sensitivity, a balanced accuracy) as a record holds it:
    each number within [0, 1], an interval with both ends or neither, its low at most its
    high, and an estimate wherever there is an interval; null throughout where undefined."""
    # Written so that NaN, which compares false with everything, is refused too.
    if any(x is not None and not 0 <= x <= 1 for x in (f.estimate, f.low, f.high)):
        raise ValueError(f"a share lies in [0, 1], not {_figure_text(f)}")
    if (f.low is None) != (f.high is None):
        raise ValueError(f"an interval has both ends or neither, not {_figure_text(f)}")
    if f.low is not None and f.high is not None:
        if f.estimate is None:
            raise ValueError(f"an interval with no estimate: {_figure_text(f)}")
        if f.low > f.high:
            raise ValueError(f"low above high: {_figure_text(f)}")
    return f


def _estimated(f: Figure) -> Figure:
    """A share's figure whose interval holds its estimate, as the audit's own intervals do
    (normal, Wilson, Clopper-Pearson): low <= estimate <= high. (A bootstrap interval, as
    decision.json's, need not.)"""
    _share(f)
    e, low, high = f.estimate, f.low, f.high
    if e is not None and low is not None and high is not None and not low <= e <= high:
        raise ValueError(f"the estimate lies outside its interval: {_figure_text(f)}")
    return f


Share = Annotated[Figure, AfterValidator(_share)]
Estimated = Annotated[Figure, AfterValidator(_estimated)]


def _figure_text(f: Figure) -> str:
    return f"{f.estimate} [{f.low}, {f.high}]"


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"{text} is too large for a number")
    return value


def read_record(path: Path, model: type[_M], what: str, hint: str) -> _M:
    """The record in the JSON file at `path`, checked against `model` (what each of its
    numbers means included), or an InputError of one line naming the file and the field;
    `what` names the file as the user knows it (`audit.json`), `hint` what it should be."""
    name = shown(path)
    if not path.is_file():
        raise InputError([f"{name}: no such {what}"])
    text = read_text(path)
    try:
        # NaN, Infinity and a number past a float's range are no figure JSON readers share.
        data = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except json.JSONDecodeError as err:
        raise InputError([f"{name}:{err.lineno}: not JSON ({err.msg})"]) from None
    except ValueError as err:
        raise InputError([f"{name}: not JSON as {what} is written ({err})"]) from None
    try:
        return model.model_validate(data, strict=True)
    except ValidationError as err:
        first = err.errors()[0]
        field = f"field {dotted(first['loc'])!r}: " if first["loc"] else ""
        message = first["msg"].removeprefix("Value error, ")
        raise InputError([f"{name}: {field}{message} (is it {hint}?)"]) from None


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


class Rate(Strict):
    """The ungrounded rate by PPI++ (power-tuned), with its normal interval."""

    figure: Estimated
    se: NonNegative
    lam: ShareValue
    """The power-tuning factor: 0 is the labels alone, 1 plain PPI."""
    disagreements: Count
    """Labelled answers whose verdict is not the label (judge failures excluded)."""
    widened: bool
    """Whether the interval was widened for having fewer than 20 disagreements."""


class LabelsOnly(Strict):
    """The rate from the labels alone, the judge ignored."""

    mean: Estimated
    """The labels' (weighted) mean with its normal interval."""
    wilson: Estimated | None
    """Wilson's interval on the count; null for a stratified (weighted) sample."""
    clopper_pearson: Estimated | None
    """Clopper-Pearson's exact interval on the count; null for a stratified sample."""
    ungrounded: Count
    labels: Count


class JudgeRate(Strict):
    """The judge's own rate over the answered answers: biased by its errors."""

    figure: Estimated
    answered: Count
    caveat: str


class Estimate(Strict):
    rate: Rate
    labels_only: LabelsOnly
    judge: JudgeRate
    effective_labels: NonNegative | None
    """n x the labels-only variance over the PPI variance: the labels alone would need this
    many for the same width. Null where the PPI variance is 0."""


class Category(Strict):
    category: str
    population: Count
    labels: Count
    estimate: Estimate | None
    """Null where the category has fewer than 2 labels."""


class Agreement(Strict):
    """The judge's sensitivity and specificity on the period's labels (Wilson intervals)."""

    sensitivity: Estimated
    specificity: Estimated
    positives: Count
    """Answered labelled answers labelled ungrounded."""
    misses: Count
    negatives: Count
    """Answered labelled answers labelled grounded."""
    false_alarms: Count
    failures: Count
    """Labelled answers the judge failed on: in neither figure."""

    @model_validator(mode="after")
    def _figures_of_its_counts(self) -> Self:
        # Each figure is recomputed from the counts it was computed from, never trusted: the
        # drift detector reads the counts, the report the figures.
        for name, figure, errors, of in (
            ("sensitivity", self.sensitivity, self.misses, self.positives),
            ("specificity", self.specificity, self.false_alarms, self.negatives),
        ):
            if errors > of:
                raise ValueError(f"{name}: {errors} errors out of {of} answers")
            expected = None if of == 0 else (of - errors) / of
            found = figure.estimate
            if (expected is None) != (found is None) or (
                expected is not None and found is not None and abs(found - expected) > 1e-9
            ):
                raise ValueError(
                    f"{name} {found} is not {of - errors} right of {of}, as its counts say"
                )
        return self


class AtPick(Strict):
    """What the judge measured when it was picked, from decision.json."""

    decision: str
    version: str
    model: str
    operating_point: Literal["verdict", "cut-off", "confidence threshold"]
    threshold: ShareValue | None
    cases: Count
    sensitivity: Share
    """decision.json's recall, with its interval."""
    specificity: ShareValue
    """2 x balanced accuracy - recall (decision.json gives no interval for it)."""
    balanced_accuracy: Share
    failure_rate: Share


class Judge(Strict):
    """The run that judged the period, and how its output is read."""

    model: str
    prompt_version: str
    graded: str
    """The run's `-T graded=` option."""
    logs: list[str]
    prediction: Prediction
    """What the estimate takes as the judge's prediction: its verdict (1 or 0), or its
    P(ungrounded) (its verdict where it gives none)."""
    cut: ShareValue
    """A prediction at or above it flags the answer (for sensitivity and specificity)."""
    graded_missing: Count
    """With the graded prediction: answered drafts with no P(ungrounded), predicted by their
    verdict."""


class Population(Strict):
    drafts: Count
    population_sha256: str
    answered: Count
    judge_failures: Count
    """Replies with no verdict that can be read."""
    unjudged: Count
    """Drafts whose run errored (an outage): no prediction, and never a judge failure."""
    failure_fill: ShareValue
    """What each judge failure and unjudged draft predicts: the judge's mean prediction over
    the answered drafts (the failure rule)."""

    @model_validator(mode="after")
    def _drafts_add_up(self) -> Self:
        parts = self.answered + self.judge_failures + self.unjudged
        if parts != self.drafts:
            raise ValueError(
                f"{self.answered} answered, {self.judge_failures} judge failures and "
                f"{self.unjudged} unjudged are {parts} drafts, not {self.drafts}"
            )
        return self


class SampleStratum(Strict):
    """A stratum of a stratified sample: its answers in the period, drawn and labelled."""

    name: str
    """`flagged` or `passed` (the judge's verdicts), or `escalated` or `decided` (a judge
    held to a confidence threshold)."""
    population: Count
    drawn: Count
    labelled: Count


class Sample(Strict):
    file: str
    design: Design
    seed: Count
    drawn: Count
    labelled: Count
    unlabelled: Count
    """Drawn and not labelled: left out, as missing at random (within its stratum)."""
    labels_files: list[str]
    annotators: list[str]
    strata: list[SampleStratum] = []
    """A stratified sample's strata; empty for a uniform one."""

    @model_validator(mode="after")
    def _labels_add_up(self) -> Self:
        if self.labelled + self.unlabelled != self.drawn:
            raise ValueError(
                f"{self.labelled} labelled and {self.unlabelled} unlabelled are not the "
                f"{self.drawn} drawn"
            )
        if (self.design == "stratified") != bool(self.strata):
            raise ValueError(f"a {self.design} sample with {len(self.strata)} strata")
        return self


class RaterOf(Strict):
    """One annotator of the period's sample."""

    annotator: str
    file: str
    labelled: Count
    """The sample's drafts this annotator labelled."""


class RaterPair(Strict):
    """Two annotators on the drafts both labelled."""

    first: str
    second: str
    shared: Count
    """Drafts both labelled."""
    agreed: Count
    """Of those, the drafts they gave one label."""
    kappa: float | None
    """Cohen's kappa on the shared drafts; null where undefined (none shared, or one label
    throughout)."""


class Raters(Strict):
    """The annotators' agreement with each other on the period's sample, where several
    labelled it (`farejudge.raters`)."""

    label: Literal["mean"] = "mean"
    """Each draft's label: the mean of its annotators' labels, in [0, 1]."""
    annotators: list[RaterOf]
    pairs: list[RaterPair]
    alpha: Figure
    """Krippendorff's alpha (nominal) over the drafts two or more labelled, with its bootstrap
    interval over drafts at the audit's level; null where undefined."""
    multiply_labelled: Count
    """Drafts two or more annotators labelled."""
    disagreements: Count
    """Of those, the drafts whose annotators gave different labels."""
    ties: Count = 0
    """Of those, the drafts whose annotators split evenly: no majority label, so left out of
    the judge's sensitivity and specificity, which read each draft's majority label."""

    @model_validator(mode="after")
    def _disagreements_within(self) -> Self:
        if self.disagreements > self.multiply_labelled:
            raise ValueError(
                f"{self.disagreements} disagreements among {self.multiply_labelled} drafts "
                "labelled by two or more"
            )
        if self.ties > self.disagreements:
            raise ValueError(f"{self.ties} even splits among {self.disagreements} disagreements")
        return self


class Alert(Strict):
    above: ShareValue | None
    """The threshold given (`--alert-above`); null if none was."""
    raised: bool
    """Whether the rate's interval lies wholly above it."""


class AuditRecord(Strict):
    """One period's audit: audit.json."""

    format: Literal[1] = 1
    """Bumped when a field changes meaning: trend refuses audit.json files of another."""
    period: str
    alpha: Level
    judge: Judge
    population: Population
    sample: Sample
    estimate: Estimate
    categories: list[Category]
    agreement: Agreement | None
    """Null for a stratified sample, whose labels overstate sensitivity and understate
    specificity. With several annotators, against each draft's majority label (`raters.ties`
    drafts, split evenly, left out)."""
    agreement_note: str | None
    """Why there is no agreement, or, with annotators who differ, what it was measured
    against; null otherwise."""
    at_pick: AtPick | None
    """Null when no decision.json was given."""
    alert: Alert
    summary: list[str]
    """The report's answer, sentence by sentence."""
    raters: Raters | None = None
    """The annotators' agreement where two or more labelled the sample; absent with one."""

    @model_serializer(mode="wrap")
    def _one_annotator_as_before(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # A period one annotator labelled is written exactly as before several could.
        data: dict[str, Any] = handler(self)
        if self.raters is None:
            data.pop("raters", None)
        return data

    @model_validator(mode="after")
    def _one_sample(self) -> Self:
        """The figures read the sample the record names: its labels, its design."""
        only, labelled = self.estimate.labels_only, self.sample.labelled
        if only.labels != labelled or only.ungrounded > labelled:
            raise ValueError(
                f"estimate.labels_only: {only.ungrounded} ungrounded of {only.labels} labels, "
                f"but the sample has {labelled} labelled"
            )
        split = self.raters is not None and self.raters.disagreements > 0
        uniform = self.sample.design == "uniform"
        counted = (only.wilson, only.clopper_pearson)
        if any((figure is not None) != (uniform and not split) for figure in counted):
            raise ValueError(
                "the labels' Wilson and Clopper-Pearson intervals are given for a uniform "
                "sample whose annotators never differ only, and this one is "
                f"{self.sample.design}{', its annotators differing' if split else ''}"
            )
        if (self.agreement is not None) != uniform:
            raise ValueError(
                "agreement is given for a uniform sample only, and this one is "
                f"{self.sample.design}"
            )
        a = self.agreement
        ties = 0 if self.raters is None else self.raters.ties
        if a is not None and a.positives + a.negatives + a.failures != labelled - ties:
            left = f" less the {ties} split evenly" if ties else ""
            raise ValueError(
                f"agreement: {a.positives} positives, {a.negatives} negatives and {a.failures} "
                f"failures are not the sample's {labelled} labelled{left}"
            )
        return self
