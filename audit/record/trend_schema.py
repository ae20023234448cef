"""trend.json's schema, as `judge-audit schema trend` prints it: the periods side by side, the
drift detector's statistic and the alerts."""

from typing import Literal

from pydantic import Field

from farejudge.audit.record.schema import Strict
from farejudge.core.decision_file import Figure


class TrendPeriod(Strict):
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


class DriftCheck(Strict):
    figure: Literal["sensitivity", "specificity"]
    reference: float
    log_statistic: list[float]
    """The natural log of the Shiryaev-Roberts statistic after each period counted."""
    log_threshold: float
    alarm_period: str | None
    """The first period whose statistic reached the threshold; null if none did."""


class Drift(Strict):
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


class TrendRecord(Strict):
    """The periods side by side, and the alerts: trend.json."""

    format: Literal[1] = 1
    periods: list[TrendPeriod]
    alert_above: float | None
    rate_alert: bool
    """Whether the newest period's rate interval lies above `alert_above`."""
    drift: Drift
    alerts: list[str] = Field(description="Each alert raised, in words; empty for none")
