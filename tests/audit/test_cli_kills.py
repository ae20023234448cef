"""judge-audit killed at each step of writing its files (issue 62): the sample (sample.json and
its drafts), the estimate (audit.json, audit.md, audit.html) and the trend (trend.json,
trend.md, trend.html) are each the old set or the new one whole, never a mix, and the next run
sweeps what a killed one left. Each is written over the set an earlier run left in the same
folder, as a weekly job rewrites it."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from farejudge.audit.cli import run
from farejudge.audit.estimate.command import read_sample
from farejudge.audit.inputs import options
from farejudge.audit.stats.design import AuditSample
from farejudge.audit.trend.build import read_periods
from farejudge.core.atomic_files import write_together
from farejudge.labelling.label_file import append_label
from farejudge.testing.production_runs import write_drafts
from tests.support.audit_runs import (
    index_of,
    judge_period,
    label_sample,
    truth_label,
    write_decision,
)
from tests.support.kill_points import Drills, drill, drilled, held, set_leftovers


def _sample(drafts: Path, week: Path, seed: int) -> list[str]:
    return [
        "sample",
        "--drafts",
        str(drafts),
        "--size",
        "30",
        "--seed",
        str(seed),
        "--out",
        str(week),
    ]


def _estimate(logs: Path, week: Path, decision: Path, period: str) -> list[str]:
    return [
        "estimate",
        str(logs),
        "--sample",
        str(week / "sample.json"),
        "--labels",
        str(week / "labels.jsonl"),
        "--decision",
        str(decision),
        "--period",
        period,
        "--out",
        str(week / "audit"),
        "--quiet",
    ]


@pytest.mark.subprocess
def test_the_sample_the_estimate_and_the_trend_are_each_old_or_new_whole_at_every_kill_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    drafts_file, logs, decision = (
        tmp_path / "drafts.jsonl",
        tmp_path / "logs",
        tmp_path / "decision.json",
    )
    drafts = write_drafts(drafts_file, 60)
    judge_period(drafts_file, logs)
    write_decision(decision)
    w48, w49 = tmp_path / "2026-W48", tmp_path / "2026-W49"
    samples: dict[str, AuditSample] = {}
    for week in (w48, w49):
        assert run(_sample(drafts_file, week, seed=5)) == 0
        sample = AuditSample.model_validate_json((week / "sample.json").read_text(encoding="utf-8"))
        label_sample(week / "labels.jsonl", drafts, sample, count=15)
        samples[week.name] = sample
        assert run(_estimate(logs, week, decision, week.name)) == 0
    trend = [
        "trend",
        str(w48 / "audit" / "audit.json"),
        "--out",
        str(tmp_path / "trend"),
        "--quiet",
    ]
    assert run(trend) == 0

    # The rest of W48's sample labelled, for its estimate again.
    numbers = index_of(drafts)
    for draft in samples[w48.name].ids[15:]:
        append_label(w48 / "labels.jsonl", truth_label(drafts[numbers[draft]], numbers[draft]))

    drills: Drills = {}
    # What reads each set: the estimate reads sample.json, the trend audit.json.
    readers: dict[str, Callable[[Path], object]] = {
        "sample": lambda week: read_sample(week / "sample.json"),
        "audit": lambda audit: read_periods([audit / "audit.json"]),
    }
    monkeypatch.setattr(options, "write_together", drilled(write_together, drills, readers))
    # Another seed for W49's sample, W48's estimate with every label of its sample, the trend
    # over both weeks.
    assert run(_sample(drafts_file, w49, seed=7)) == 0
    assert run(_estimate(logs, w48, decision, w48.name)) == 0
    assert run([*trend[:2], str(w49 / "audit" / "audit.json"), *trend[2:]]) == 0

    (drawn,) = drills["sample"]
    held(drawn, "judge-audit sample")
    assert [s.seed for s in drawn.read[:2] if isinstance(s, AuditSample)] == [5, 7]
    assert json.loads(drawn.before["sample.json"])["seed"] == 5
    assert json.loads(drawn.after["sample.json"])["seed"] == 7
    (audit,) = drills["audit"]
    held(audit, "judge-audit estimate")
    assert sorted(audit.after) == ["audit.html", "audit.json", "audit.md"]
    assert audit.before["audit.json"] != audit.after["audit.json"]
    (trended,) = drills["trend"]
    held(trended, "judge-audit trend")
    periods = [
        [p["period"] for p in json.loads(t["trend.json"])["periods"]]
        for t in (trended.before, trended.after)
    ]
    assert periods == [["2026-W48"], ["2026-W48", "2026-W49"]]


@pytest.mark.subprocess
def test_the_sample_killed_from_the_start_of_the_command_at_each_step(tmp_path: Path) -> None:
    """`judge-audit sample` armed from its start, not where it writes: the same drill, the
    kill points counted from the command's first step in the folder."""
    drafts_file, week = tmp_path / "drafts.jsonl", tmp_path / "2026-W49"
    write_drafts(drafts_file, 60)
    assert run(_sample(drafts_file, week, seed=5)) == 0
    argv = _sample(drafts_file, week, seed=7)
    result = drill(lambda: run(argv), week, set_leftovers("sample"))
    held(result, "judge-audit sample, from its start")
    assert json.loads(result.before["sample.json"])["seed"] == 5
    assert json.loads(result.after["sample.json"])["seed"] == 7
