"""Periods side by side (their audit.json files) → trend.json's record, with the alerts.

Two alerts, for cron and CI:
- the rate: the newest period's interval lies wholly above `--alert-above` (an older period
  above it is marked in the table, and raises nothing now);
- the judge has drifted: the drift detector (`audit.drift`, valid under a look every period
  over its horizon) over the periods of the judge in use, against its figures when picked.

The detector counts the newest run of periods judged by the reference judge (the prompt
version and model decision.json prefers), back to the first period of another judge or of
another pick, or to `--since`: a new pick starts a new horizon. A stratified period is left
out (its labels overstate sensitivity).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from farejudge.audit.record.formatting import percent
from farejudge.audit.record.schema import AtPick, AuditRecord, interval, read_record
from farejudge.audit.record.trend_schema import Drift, DriftCheck, TrendPeriod, TrendRecord
from farejudge.audit.stats.drift import (
    HORIZON,
    DriftDetection,
    detect_drift,
    rate_alert,
)
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown


@dataclass(frozen=True)
class Period:
    file: str
    record: AuditRecord


def read_periods(paths: Sequence[Path]) -> list[Period]:
    """Each audit.json, oldest period first (by name: ISO weeks and dates sort), or an
    InputError naming every file that is not one, and a period given twice."""
    problems: list[str] = []
    found: list[Period] = []
    for path in paths:
        name = shown(path)
        try:
            record = read_record(
                path,
                AuditRecord,
                "audit.json",
                "an audit.json of this version's judge-audit estimate",
            )
        except InputError as err:
            problems += err.problems
            continue
        found.append(Period(name, record))
    seen: dict[str, str] = {}
    for period in found:
        earlier = seen.setdefault(period.record.period, period.file)
        if earlier != period.file:
            problems.append(
                f"{period.file}: period {period.record.period!r} is {earlier}'s too: give each "
                "period once"
            )
    if problems:
        raise InputError(problems)
    return sorted(found, key=lambda p: p.record.period)


def _reference(periods: list[Period], decision: AtPick | None) -> AtPick:
    if decision is not None:
        return decision
    for period in reversed(periods):
        if period.record.at_pick is not None:
            return period.record.at_pick
    raise InputError(
        [
            f"{periods[-1].file}: no figures at the pick to test the judge's drift against: "
            "give --decision decision.json (or estimate the periods with --decision)"
        ]
    )


def _same_pick(a: AtPick, b: AtPick) -> bool:
    return (a.version, a.model, a.sensitivity, a.specificity) == (
        b.version,
        b.model,
        b.sensitivity,
        b.specificity,
    )


def drift_periods(periods: list[Period], reference: AtPick, since: str | None) -> list[Period]:
    """The periods the detector counts, oldest first: the newest run of the reference judge's
    periods, from `since` on, uniform samples only."""
    counted: list[Period] = []
    for period in reversed(periods):
        record = period.record
        if since is not None and record.period < since:
            break
        judge = (record.judge.prompt_version, record.judge.model)
        if judge != (reference.version, reference.model):
            break
        if record.at_pick is not None and not _same_pick(record.at_pick, reference):
            break
        if record.agreement is not None:
            counted.append(period)
    return counted[::-1]


def _bounded(figure: float, cases: int) -> float:
    """A figure of 1 (or 0) at the pick read as half a case off it: no judge is measured
    never to err on a finite gold set, and the detector needs an error rate above 0."""
    margin = 0.5 / max(cases, 1)
    return min(max(figure, margin), 1 - margin)


def _drift(counted: list[Period], reference: AtPick, alpha: float, horizon: int) -> Drift:
    if len(counted) > horizon:
        raise InputError(
            [
                f"{counted[-1].file}: {len(counted)} periods of {reference.version} on "
                f"{reference.model}, past the horizon of {horizon} looks the drift threshold "
                f"holds for: start a new horizon with --since PERIOD"
            ]
        )
    # drift_periods counts only the periods with an agreement: one per name, in order.
    checked = [p.record.agreement for p in counted if p.record.agreement is not None]
    names = [p.record.period for p in counted]
    sensitivity = _bounded(reference.sensitivity.estimate or 0.0, reference.cases)
    specificity = _bounded(reference.specificity, reference.cases)
    report = detect_drift(
        misses=[a.misses for a in checked],
        positives=[a.positives for a in checked],
        false_alarms=[a.false_alarms for a in checked],
        negatives=[a.negatives for a in checked],
        reference_sensitivity=sensitivity,
        reference_specificity=specificity,
        alpha=alpha,
        horizon=horizon,
    )

    def check(found: DriftDetection) -> DriftCheck:
        return DriftCheck(
            figure=found.figure,
            reference=found.reference,
            log_statistic=list(found.log_statistic),
            log_threshold=found.log_threshold,
            alarm_period=None if found.alarm_week is None else names[found.alarm_week],
        )

    return Drift(
        version=reference.version,
        model=reference.model,
        decision=reference.decision,
        periods=names,
        alpha=alpha,
        horizon=horizon,
        sensitivity=check(report.sensitivity),
        specificity=check(report.specificity),
        alarm=report.alarm,
    )


def _row(period: Period, counted: set[str], above: float | None) -> TrendPeriod:
    r = period.record
    a = r.agreement
    only = r.estimate.labels_only
    return TrendPeriod(
        period=r.period,
        file=period.file,
        model=r.judge.model,
        prompt_version=r.judge.prompt_version,
        drafts=r.population.drafts,
        labels=r.sample.labelled,
        rate=r.estimate.rate.figure,
        labels_only=only.wilson or only.mean,
        judge=r.estimate.judge.figure,
        sensitivity=None if a is None else a.sensitivity,
        specificity=None if a is None else a.specificity,
        in_drift=r.period in counted,
        above=None if above is None else rate_alert(interval(r.estimate.rate.figure), above),
    )


def alerts(record: TrendRecord) -> list[str]:
    """Each alert raised, in words."""
    found = []
    newest = record.periods[-1]
    if record.rate_alert and record.alert_above is not None:
        rate = newest.rate
        found.append(
            f"rate: {newest.period}'s interval [{percent(rate.low or 0)}, "
            f"{percent(rate.high or 0)}] lies above {percent(record.alert_above)}"
        )
    for check in (record.drift.sensitivity, record.drift.specificity):
        if check.alarm_period is not None:
            found.append(
                f"drift: the judge's {check.figure} has fallen below {check.reference:.3f}, "
                f"its figure at the pick (alarm at {check.alarm_period})"
            )
    return found


def trend_record(
    periods: list[Period],
    decision: AtPick | None,
    alert_above: float | None,
    alpha: float = 0.05,
    horizon: int = HORIZON,
    since: str | None = None,
) -> TrendRecord:
    """trend.json's record over `periods` (oldest first), or an InputError saying why the drift
    cannot be tested."""
    reference = _reference(periods, decision)
    counted = drift_periods(periods, reference, since)
    drift = _drift(counted, reference, alpha, horizon)
    names = {p.record.period for p in counted}
    rows = [_row(p, names, alert_above) for p in periods]
    record = TrendRecord(
        periods=rows,
        alert_above=alert_above,
        rate_alert=bool(rows[-1].above),
        drift=drift,
        alerts=[],
    )
    return record.model_copy(update={"alerts": alerts(record)})
