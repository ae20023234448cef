"""The trend's report, trend.md and trend.html: its sections in the comparison's document model.

The alerts first, then the periods' table and plot, then the drift detector's statistic
period by period against its threshold.
"""

import math
from functools import partial

from farejudge.audit.record.formatting import interval
from farejudge.audit.record.trend_schema import TrendRecord
from farejudge.audit.trend.plots import agreement, rates
from farejudge.shared.document.model import Section, Table, bad, good

DRIFT = (
    "The drift detector is the Shiryaev-Roberts e-detector over the periods of the judge in "
    "use (docs/audit.md): the chance of any false alarm over its horizon of looks, while the "
    "judge keeps its figures at the pick, is at most alpha, however often the team looks."
)


def _header(record: TrendRecord) -> Section:
    if record.alerts:
        return Section(
            title="Production audit: the trend",
            key="header",
            lines=[f"{len(record.alerts)} alert(s):"],
            bullets=[bad(line) for line in record.alerts],
            tone="bad",
        )
    newest = record.periods[-1]
    lines = [f"No alert over {len(record.periods)} period(s), the newest {newest.period}."]
    return Section(title="Production audit: the trend", key="header", lines=lines, tone="good")


def _mark(above: bool | None) -> str:
    if above is None:
        return ""
    return bad("above") if above else good("no")


def _periods(record: TrendRecord) -> Section:
    rows = [
        [
            p.period,
            f"{p.drafts:,}",
            str(p.labels),
            interval(p.rate),
            interval(p.labels_only),
            interval(p.judge),
            interval(p.sensitivity),
            interval(p.specificity),
            "yes" if p.in_drift else "no",
            _mark(p.above),
        ]
        for p in record.periods
    ]
    above = "" if record.alert_above is None else f" (alert above {100 * record.alert_above:g} %)"
    return Section(
        title="The rate and the judge, period by period",
        key="periods",
        lines=[
            "The rate by PPI++, beside the labels alone and the judge's own (biased) rate; the "
            f"judge's sensitivity and specificity on each period's labels{above}. The rate "
            "alert is the newest period's."
        ],
        tables=[
            Table(
                columns=[
                    "period",
                    "answers",
                    "labels",
                    "rate (PPI++)",
                    "labels alone",
                    "judge alone",
                    "sensitivity",
                    "specificity",
                    "in drift test",
                    "above",
                ],
                rows=rows,
            )
        ],
        plot=partial(rates, record),
    )


def _statistic(values: list[float], at: int, threshold: float) -> str:
    value = values[at]
    shown = f"{value:.2f}" if math.isfinite(value) else str(value)
    return bad(shown) if value >= threshold else shown


def _drift(record: TrendRecord) -> Section:
    d = record.drift
    lines = [
        DRIFT,
        f"Against {d.version} on {d.model} at the pick ({d.decision}): sensitivity "
        f"{d.sensitivity.reference:.3f}, specificity {d.specificity.reference:.3f}; "
        f"alpha {d.alpha:g} over {d.horizon} looks: threshold log R >= "
        f"{d.sensitivity.log_threshold:.2f}.",
    ]
    if not d.periods:
        lines.append("No period of this judge with a uniform sample: nothing to test yet.")
    rows = [
        [
            name,
            _statistic(d.sensitivity.log_statistic, i, d.sensitivity.log_threshold),
            _statistic(d.specificity.log_statistic, i, d.specificity.log_threshold),
        ]
        for i, name in enumerate(d.periods)
    ]
    verdict = bad("ALARM: the judge has drifted") if d.alarm else good("no drift detected")
    return Section(
        title="Has the judge drifted?",
        key="drift",
        lines=lines,
        bullets=[verdict],
        tables=[Table(columns=["period", "log R, sensitivity", "log R, specificity"], rows=rows)]
        if rows
        else [],
        plot=partial(agreement, record),
        tone="bad" if d.alarm else "good",
    )


def trend_sections(record: TrendRecord) -> list[Section]:
    return [_header(record), _periods(record), _drift(record)]
