"""The trend over periods' audit.json: the drift alarm on the periods of the judge in use, the
newest period's rate alert, and the reasons it cannot test the drift, one line each."""

from pathlib import Path

import pytest

from farejudge.audit.cli import run
from farejudge.audit.record.schema import (
    Agreement,
    Alert,
    AtPick,
    AuditRecord,
    Estimate,
    Judge,
    JudgeRate,
    LabelsOnly,
    Population,
    Rate,
    Sample,
)
from farejudge.audit.record.trend_schema import TrendRecord
from farejudge.audit.stats.drift import detect_drift
from farejudge.audit.trend.build import Period, trend_record
from farejudge.core.decision_file import Figure
from farejudge.core.errors import InputError

MODEL, VERSION = "openai/gpt-4o-mini", "v3"


def _figure(estimate: float, half: float = 0.02) -> Figure:
    return Figure(estimate=estimate, low=estimate - half, high=estimate + half)


def _at_pick(sensitivity: float = 0.95, specificity: float = 0.95) -> AtPick:
    return AtPick(
        decision="decision.json",
        version=VERSION,
        model=MODEL,
        operating_point="verdict",
        threshold=None,
        cases=144,
        sensitivity=_figure(sensitivity),
        specificity=specificity,
        balanced_accuracy=_figure((sensitivity + specificity) / 2),
        failure_rate=_figure(0.0, 0.0),
    )


def _period(
    name: str,
    misses: int,
    false_alarms: int,
    rate: float = 0.2,
    model: str = MODEL,
    at_pick: AtPick | None = None,
) -> Period:
    """A period of 200 labels (40 ungrounded) the judge misses and false-alarms on as given."""
    estimate = Estimate(
        rate=Rate(figure=_figure(rate), se=0.01, lam=0.8, disagreements=20, widened=False),
        labels_only=LabelsOnly(
            mean=_figure(rate, 0.05),
            wilson=_figure(rate, 0.05),
            clopper_pearson=_figure(rate, 0.06),
            ungrounded=40,
            labels=200,
        ),
        judge=JudgeRate(figure=_figure(rate + 0.05, 0.01), answered=10_000, caveat="biased"),
        effective_labels=600.0,
    )
    record = AuditRecord(
        period=name,
        alpha=0.05,
        judge=Judge(
            model=model,
            prompt_version=VERSION,
            graded="auto",
            logs=["logs"],
            prediction="verdict",
            cut=0.5,
            graded_missing=0,
        ),
        population=Population(
            drafts=10_000,
            population_sha256="0" * 64,
            answered=10_000,
            judge_failures=0,
            unjudged=0,
            failure_fill=0.25,
        ),
        sample=Sample(
            file="sample.json",
            design="uniform",
            seed=1,
            drawn=200,
            labelled=200,
            unlabelled=0,
            labels_files=["labels.jsonl"],
            annotators=["ana"],
        ),
        estimate=estimate,
        categories=[],
        agreement=Agreement(
            sensitivity=_figure(1 - misses / 40),
            specificity=_figure(1 - false_alarms / 160),
            positives=40,
            misses=misses,
            negatives=160,
            false_alarms=false_alarms,
            failures=0,
        ),
        agreement_note=None,
        at_pick=_at_pick() if at_pick is None else at_pick,
        alert=Alert(above=None, raised=False),
        summary=[],
    )
    return Period(f"{name}/audit.json", record)


def test_a_judge_that_drifts_raises_the_alarm_at_the_week_the_detector_says() -> None:
    # 2 misses in 40 (0.95) for ten weeks, then 10 in 40 (0.75).
    misses = [2] * 10 + [10] * 4
    periods = [_period(f"2026-W{10 + i:02d}", m, 8) for i, m in enumerate(misses)]
    found = trend_record(periods, None, None)
    expected = detect_drift(misses, [40] * 14, [8] * 14, [160] * 14, 0.95, 0.95)
    assert expected.sensitivity.alarm_week is not None
    assert (
        found.drift.sensitivity.alarm_period
        == periods[expected.sensitivity.alarm_week].record.period
    )
    assert found.drift.sensitivity.log_statistic == pytest.approx(
        list(expected.sensitivity.log_statistic)
    )
    assert found.drift.alarm and found.drift.specificity.alarm_period is None
    assert found.alerts == [
        "drift: the judge's sensitivity has fallen below 0.950, its figure at the pick "
        f"(alarm at {found.drift.sensitivity.alarm_period})"
    ]


def test_a_judge_that_keeps_its_figures_raises_no_alarm() -> None:
    periods = [_period(f"2026-W{10 + i:02d}", 2, 8) for i in range(20)]
    found = trend_record(periods, None, None)
    assert not found.drift.alarm and found.alerts == []


@pytest.mark.parametrize(("newest", "raised"), [(0.30, True), (0.20, False)])
def test_the_rate_alert_is_the_newest_period_s(newest: float, raised: bool) -> None:
    periods = [_period("2026-W10", 2, 8, rate=0.4), _period("2026-W11", 2, 8, rate=newest)]
    found = trend_record(periods, None, alert_above=0.25)
    assert [p.above for p in found.periods] == [True, raised]
    assert found.rate_alert == raised
    assert bool(found.alerts) == raised


def test_the_drift_test_counts_the_newest_judge_s_periods_only() -> None:
    other = [_period(f"2026-W0{i}", 20, 60, model="openai/gpt-4o") for i in range(3)]
    mine = [_period(f"2026-W1{i}", 2, 8) for i in range(3)]
    found = trend_record(other + mine, None, None)
    assert found.drift.periods == [p.record.period for p in mine]
    assert [p.in_drift for p in found.periods] == [False] * 3 + [True] * 3
    assert not found.drift.alarm
    # A new pick starts a new horizon: a period of the same judge at other figures is before it.
    repicked = _period("2026-W09", 20, 60, at_pick=_at_pick(0.80, 0.80))
    assert trend_record([repicked, *mine], None, None).drift.periods == [
        p.record.period for p in mine
    ]
    assert trend_record(mine, None, None, since="2026-W11").drift.periods == [
        "2026-W11",
        "2026-W12",
    ]


def test_more_periods_than_the_horizon_is_one_line() -> None:
    periods = [_period(f"2026-W{i:02d}", 2, 8) for i in range(5)]
    with pytest.raises(InputError) as raised:
        trend_record(periods, None, None, horizon=4)
    (line,) = raised.value.problems
    assert "5 periods of v3 on openai/gpt-4o-mini, past the horizon of 4 looks" in line
    assert line.endswith("start a new horizon with --since PERIOD")


def test_with_no_figures_at_the_pick_the_drift_cannot_be_tested(tmp_path: Path) -> None:
    periods = [_period("2026-W10", 2, 8)]
    bare = Period(periods[0].file, periods[0].record.model_copy(update={"at_pick": None}))
    with pytest.raises(InputError) as raised:
        trend_record([bare], None, None)
    assert raised.value.problems == [
        "2026-W10/audit.json: no figures at the pick to test the judge's drift against: give "
        "--decision decision.json (or estimate the periods with --decision)"
    ]


def test_a_period_given_twice_and_a_file_that_is_not_an_audit_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, again = tmp_path / "a.json", tmp_path / "b.json"
    record = _period("2026-W10", 2, 8).record
    first.write_text(record.model_dump_json(), encoding="utf-8")
    again.write_text(record.model_dump_json(), encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"period": "x"}', encoding="utf-8")
    assert run(["trend", str(first), str(again), str(other), "--out", str(tmp_path / "t")]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"judge-audit: error: {other}: field ")
    assert lines[1] == (
        f"judge-audit: error: {again}: period '2026-W10' is {first}'s too: give each period once"
    )
    assert not (tmp_path / "t").exists()


def test_the_trend_record_round_trips_through_its_json() -> None:
    found = trend_record([_period("2026-W10", 2, 8)], None, 0.1)
    assert TrendRecord.model_validate_json(found.model_dump_json()) == found
