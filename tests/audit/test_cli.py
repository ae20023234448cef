"""judge-audit in-process: the sample, the estimate and the trend over a period the scripted
judge judged, their records against their schemas and against the statistics computed by hand;
every bad input one line naming the file and the place, with nothing written."""

import json
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from farejudge.audit.cli import EXIT_INPUT, run
from farejudge.audit.estimate.statistics import estimate_by_category, estimate_period
from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.record.schema import AuditRecord
from farejudge.audit.record.trend_schema import TrendRecord
from farejudge.audit.stats.design import AuditSample
from farejudge.audit.stats.planning import JudgeFigures, plan_sample_size
from farejudge.core.drafts import Draft
from farejudge.labelling.label_file import append_label
from farejudge.testing.production_runs import ungrounded, write_drafts
from farejudge.testing.synthetic_logs import write_runs
from tests.support.audit_runs import (
    MODEL,
    held_escalates,
    index_of,
    judge_period,
    judge_period_held,
    label_sample,
    truth_label,
    write_decision,
)

COUNT = 60
SIZE = 30


@dataclass(frozen=True)
class Period:
    root: Path
    drafts: list[Draft]
    drafts_file: Path
    logs: Path
    decision: Path


@pytest.fixture(scope="module")
def period(tmp_path_factory: pytest.TempPathFactory) -> Period:
    root = tmp_path_factory.mktemp("period")
    drafts = write_drafts(root / "drafts.jsonl", COUNT)
    judge_period(root / "drafts.jsonl", root / "logs")
    write_decision(root / "decision.json")
    return Period(root, drafts, root / "drafts.jsonl", root / "logs", root / "decision.json")


@pytest.fixture(scope="module")
def another(tmp_path_factory: pytest.TempPathFactory) -> Period:
    """A period of other drafts (the first 40 of the same synthetic ones)."""
    root = tmp_path_factory.mktemp("another")
    drafts = write_drafts(root / "drafts.jsonl", 40)
    judge_period(root / "drafts.jsonl", root / "logs")
    write_decision(root / "decision.json")
    return Period(root, drafts, root / "drafts.jsonl", root / "logs", root / "decision.json")


def _sample(period: Period, out: Path, *extra: str, size: int = SIZE, seed: int = 5) -> AuditSample:
    argv = ["sample", "--drafts", str(period.drafts_file), "--size", str(size)]
    assert run([*argv, "--seed", str(seed), "--out", str(out), *extra]) == 0
    return AuditSample.model_validate_json((out / "sample.json").read_text(encoding="utf-8"))


def _estimate(
    period: Period, sample: Path, labels: list[Path], out: Path, *extra: str, name: str = "W1"
) -> int:
    argv = ["estimate", str(period.logs), "--sample", str(sample / "sample.json"), "--labels"]
    argv += [str(path) for path in labels]
    return run([*argv, "--period", name, "--out", str(out), "--quiet", *extra])


def _schema(record: str, capsys: pytest.CaptureFixture[str]) -> object:
    capsys.readouterr()
    assert run(["schema", record]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_the_estimate_is_the_statistics_on_the_judged_logs_and_the_labels(
    period: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = _sample(period, tmp_path / "sample")
    labels = tmp_path / "sample" / "labels" / "ana.jsonl"
    label_sample(labels, period.drafts, sample)
    out = tmp_path / "audit"
    assert (
        _estimate(period, tmp_path / "sample", [labels], out, "--decision", str(period.decision))
        == 0
    )
    written = json.loads((out / "audit.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, _schema("audit", capsys))
    record = AuditRecord.model_validate(written)

    # By hand: the judge's verdicts from the logs, the labels' truth, PPI++.
    judged = read_judged([str(period.logs)])
    where = judged.positions(judged.ids.tolist())
    positions = [where[draft] for draft in sample.ids]
    numbers = index_of(period.drafts)
    truth = np.array([float(ungrounded(numbers[draft])) for draft in sample.ids])
    expected = estimate_period(judged.verdict, positions, truth)
    assert record.estimate.rate.figure.estimate == pytest.approx(expected.rate.estimate, abs=1e-12)
    assert record.estimate.rate.figure.low == pytest.approx(expected.rate.interval.low, abs=1e-12)
    assert record.estimate.rate.figure.high == pytest.approx(expected.rate.interval.high, abs=1e-12)
    wilson = expected.labels_only.wilson()
    assert wilson is not None and record.estimate.labels_only.wilson is not None
    assert record.estimate.labels_only.wilson.low == pytest.approx(wilson.low)
    assert record.estimate.judge.figure.estimate == pytest.approx(expected.judge.interval.estimate)
    by_hand = estimate_by_category(judged.verdict, positions, truth, judged.categories)
    assert [c.category for c in record.categories] == [c.category for c in by_hand]
    assert [c.labels for c in record.categories] == [c.labels for c in by_hand]
    assert record.population.drafts == COUNT
    assert record.population.judge_failures == int(judged.failed.sum()) > 0
    assert record.sample.labelled == SIZE and record.sample.unlabelled == 0
    # The judge against the labels, and against its figures at the pick.
    agreement = record.agreement
    assert agreement is not None and record.at_pick is not None
    flagged = judged.verdict[positions] >= 0.5
    answered = ~np.isnan(judged.verdict[positions])
    assert agreement.positives == int((answered & (truth == 1)).sum())
    assert agreement.misses == int((answered & (truth == 1) & ~flagged).sum())
    assert record.at_pick.sensitivity.estimate == pytest.approx(0.9)
    assert record.at_pick.model == MODEL
    text = (out / "audit.md").read_text(encoding="utf-8")
    assert text.startswith("# Production audit: W1") and "## By category" in text
    page = (out / "audit.html").read_text(encoding="utf-8")
    assert page.count("<img") == 2


@pytest.mark.slow
@pytest.mark.parametrize(("above", "code"), [(0.01, 1), (0.99, 0)])
def test_the_exit_code_follows_the_rate_alert(
    period: Period, tmp_path: Path, above: float, code: int
) -> None:
    sample = _sample(period, tmp_path / "sample")
    labels = tmp_path / "labels.jsonl"
    label_sample(labels, period.drafts, sample)
    out = tmp_path / "audit"
    assert (
        _estimate(period, tmp_path / "sample", [labels], out, "--alert-above", str(above)) == code
    )
    record = AuditRecord.model_validate_json((out / "audit.json").read_text(encoding="utf-8"))
    assert record.alert.raised == (code == 1)


@pytest.mark.slow
def test_a_sample_is_drawn_again_from_its_seed_and_its_drafts_are_blind(
    period: Period, tmp_path: Path
) -> None:
    first = _sample(period, tmp_path / "a")
    again = _sample(period, tmp_path / "b")
    assert first == again
    assert (tmp_path / "a" / "sample-drafts.jsonl").read_bytes() == (
        tmp_path / "b" / "sample-drafts.jsonl"
    ).read_bytes()
    written = [
        json.loads(line)
        for line in (tmp_path / "a" / "sample-drafts.jsonl")
        .read_text(encoding="utf-8")
        .splitlines()
    ]
    assert [d["id"] for d in written] == list(first.ids)
    by_id = {d.id: d for d in period.drafts}
    assert [Draft.model_validate(d) for d in written] == [by_id[i] for i in first.ids]
    assert not {"grounded", "verdict", "label"} & {key for d in written for key in d}
    other = _sample(period, tmp_path / "c", seed=6)
    assert other.ids != first.ids


@pytest.mark.slow
def test_a_stratified_sample_weighs_its_labels(period: Period, tmp_path: Path) -> None:
    sample = _sample(
        period, tmp_path / "sample", "--judged", str(period.logs), "--flagged", "14", size=24
    )
    assert sample.design == "stratified"
    assert {s.name: s.size for s in sample.strata} == {"flagged": 14, "passed": 10}
    labels = tmp_path / "labels.jsonl"
    label_sample(labels, period.drafts, sample)
    out = tmp_path / "audit"
    assert _estimate(period, tmp_path / "sample", [labels], out) == 0
    record = AuditRecord.model_validate_json((out / "audit.json").read_text(encoding="utf-8"))
    judged = read_judged([str(period.logs)])
    where = judged.positions(judged.ids.tolist())
    numbers = index_of(period.drafts)
    truth = [float(ungrounded(numbers[d])) for d in sample.ids]
    expected = estimate_period(
        judged.verdict, [where[d] for d in sample.ids], truth, weights=sample.weights(sample.ids)
    )
    assert record.estimate.rate.figure.estimate == pytest.approx(expected.rate.estimate, abs=1e-12)
    assert record.estimate.labels_only.wilson is None
    assert record.agreement is None and record.agreement_note is not None


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> Period:
    """A period judged by a judge held to a confidence threshold of 0.9."""
    root = tmp_path_factory.mktemp("held")
    drafts = write_drafts(root / "drafts.jsonl", COUNT)
    judge_period_held(root / "drafts.jsonl", root / "logs", threshold=0.9)
    write_decision(root / "decision.json")
    return Period(root, drafts, root / "drafts.jsonl", root / "logs", root / "decision.json")


@pytest.mark.slow
def test_escalated_answers_are_labelled_in_full_beside_a_uniform_sample(
    held: Period, tmp_path: Path
) -> None:
    numbers = index_of(held.drafts)
    escalated = {d.id for d in held.drafts if held_escalates(numbers[d.id])}
    sample = _sample(held, tmp_path / "sample", "--judged", str(held.logs), "--escalated", size=10)
    assert sample.design == "stratified"
    assert {(s.name, s.population, s.size) for s in sample.strata} == {
        ("escalated", len(escalated), len(escalated)),
        ("decided", COUNT - len(escalated), 10),
    }
    assert escalated < set(sample.ids)
    labels = tmp_path / "labels.jsonl"
    label_sample(labels, held.drafts, sample)
    out = tmp_path / "audit"
    assert _estimate(held, tmp_path / "sample", [labels], out) == 0
    record = AuditRecord.model_validate_json((out / "audit.json").read_text(encoding="utf-8"))
    # Each escalated label weighs 1 (every one drawn), each decided one its stratum's size
    # over its draws.
    weights = sample.weights(sample.ids)
    assert weights is not None
    assert {w for d, w in zip(sample.ids, weights, strict=True) if d in escalated} == {1.0}
    judged = read_judged([str(held.logs)])
    where = judged.positions(judged.ids.tolist())
    truth = [float(ungrounded(numbers[d])) for d in sample.ids]
    expected = estimate_period(
        judged.verdict, [where[d] for d in sample.ids], truth, weights=weights
    )
    assert record.estimate.rate.figure.estimate == pytest.approx(expected.rate.estimate, abs=1e-12)
    assert record.estimate.rate.figure.low == pytest.approx(expected.rate.interval.low, abs=1e-12)
    assert [(s.name, s.labelled, s.population) for s in record.sample.strata] == [
        ("decided", 10, COUNT - len(escalated)),
        ("escalated", len(escalated), len(escalated)),
    ]
    text = (out / "audit.md").read_text(encoding="utf-8")
    assert f"escalated: {len(escalated)} labelled of {len(escalated)}" in text


def test_escalated_strata_need_a_run_held_to_a_threshold(
    period: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sample", "--drafts", str(period.drafts_file), "--size", "5", "--judged"]
    code = run([*argv, str(period.logs), "--escalated", "--out", str(tmp_path / "s")])
    line = _one_error(capsys, code)
    assert line.endswith(
        "the run held its answers to no confidence threshold, so it escalated none: judge the "
        "period with -T threshold= (or a decision.json whose pick escalates to a person), or "
        "draw without --escalated"
    )
    assert not (tmp_path / "s").exists()
    code = run([*argv, str(period.logs), "--escalated", "--flagged", "2"])
    assert _one_error(capsys, code) == (
        "--escalated draws every escalated answer: give it without --flagged or --decision"
    )


@pytest.mark.slow
def test_the_trend_over_two_periods_and_its_alerts(
    period: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    audits = []
    for week, seed in (("2026-W48", 5), ("2026-W49", 7)):
        sample = _sample(period, tmp_path / week, seed=seed)
        labels = tmp_path / week / "labels.jsonl"
        label_sample(labels, period.drafts, sample)
        out = tmp_path / week / "audit"
        argv = ["--decision", str(period.decision)]
        assert _estimate(period, tmp_path / week, [labels], out, *argv, name=week) == 0
        audits.append(str(out / "audit.json"))
    trend = tmp_path / "trend"
    assert run(["trend", *audits[::-1], "--out", str(trend), "--quiet"]) == 0
    written = json.loads((trend / "trend.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, _schema("trend", capsys))
    record = TrendRecord.model_validate(written)
    assert [p.period for p in record.periods] == ["2026-W48", "2026-W49"]
    assert record.drift.periods == ["2026-W48", "2026-W49"] and not record.drift.alarm
    assert record.alerts == []
    assert run(["trend", *audits, "--out", str(trend), "--quiet", "--alert-above", "0"]) == 1
    record = TrendRecord.model_validate_json((trend / "trend.json").read_text(encoding="utf-8"))
    assert record.rate_alert and record.alerts[0].startswith("rate: 2026-W49's interval")
    assert "<img" in (trend / "trend.html").read_text(encoding="utf-8")


def test_plan_prints_the_labels_the_planning_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run(["plan", "--sensitivity", "0.95", "--specificity", "0.95", "--half-width", "0.03"]) == 0
    )
    printed = capsys.readouterr().out
    plan = plan_sample_size(JudgeFigures(0.95, 0.95), 0.2, 0.03)
    assert f"| PPI++ (the judge's verdicts and the labels) | {plan.labels_ppi:,} |" in printed
    assert f"| the labels alone | {plan.labels_only:,} |" in printed
    assert f"| saved by the judge | {plan.labels_saved:,} |" in printed
    decision = tmp_path / "decision.json"
    write_decision(decision)
    assert run(["plan", "--decision", str(decision), "--half-width", "0.05"]) == 0
    assert "v3 on mockllm/model at the pick" in capsys.readouterr().out


# --- bad input: one line each, nothing written -------------------------------------------------


def _one_error(capsys: pytest.CaptureFixture[str], code: int) -> str:
    assert code == EXIT_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("judge-audit: error: ")
    assert "Traceback" not in lines[0]
    return lines[0].removeprefix("judge-audit: error: ")


def _refused(
    period: Period,
    tmp_path: Path,
    labels: list[Path],
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> str:
    """The one line `judge-audit estimate` refuses the period's sample in tmp_path/sample
    with, having written nothing."""
    code = _estimate(period, tmp_path / "sample", labels, tmp_path / "out", *extra)
    line = _one_error(capsys, code)
    assert not (tmp_path / "out").exists()
    return line


@pytest.fixture
def labelled(period: Period, tmp_path: Path) -> tuple[AuditSample, Path]:
    """A sample of the period, with half its drafts labelled in labels.jsonl."""
    sample = _sample(period, tmp_path / "sample")
    label_sample(tmp_path / "labels.jsonl", period.drafts, sample, count=SIZE // 2)
    return sample, tmp_path / "labels.jsonl"


@pytest.mark.slow
def test_a_label_of_a_draft_outside_the_sample(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample, labels = labelled
    outside = next(d for d in period.drafts if d.id not in sample.ids)
    append_label(labels, truth_label(outside, index_of(period.drafts)[outside.id]))
    line = _refused(period, tmp_path, [labels], capsys)
    assert line.startswith(
        f"{labels}:{SIZE // 2 + 1}: label for '{outside.id}' names a draft outside"
    )


@pytest.mark.slow
def test_a_sample_of_another_population(
    period: Period, another: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = _sample(another, tmp_path / "sample")
    label_sample(tmp_path / "labels.jsonl", another.drafts, sample)
    line = _refused(period, tmp_path, [tmp_path / "labels.jsonl"], capsys)
    assert line.startswith(
        f"{tmp_path / 'sample' / 'sample.json'}: drawn from 40 drafts hashing to"
    )
    assert "judged 60 drafts hashing to" in line and "another drafts file" in line


@pytest.mark.slow
def test_a_period_with_no_labels(
    period: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _sample(period, tmp_path / "sample")
    labels = tmp_path / "labels.jsonl"
    labels.write_text("", encoding="utf-8")
    line = _refused(period, tmp_path, [labels], capsys)
    assert line == (
        f"{labels}: no labels of the sample's drafts: a period with no labels has no estimate"
    )


@pytest.mark.slow
def test_a_labels_file_with_a_torn_last_line(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, labels = labelled
    torn = '{"case_id": "prod-1", "content_sha256": "ab'
    with labels.open("a", encoding="utf-8") as out:
        out.write(torn)
    line = _refused(period, tmp_path, [labels], capsys)
    assert line.startswith(
        f"{labels}:{SIZE // 2 + 1}: torn last line (an interrupted save, {len(torn)} bytes): "
        "no estimate from a labels file mid-save"
    )


@pytest.mark.slow
def test_a_label_of_other_content(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sample, labels = labelled
    drafted = {d.id: d for d in period.drafts}[sample.ids[-1]]
    changed = drafted.model_copy(update={"content_sha256": "f" * 64})
    append_label(labels, truth_label(changed, index_of(period.drafts)[drafted.id]))
    line = _refused(period, tmp_path, [labels], capsys)
    assert line.startswith(
        f"{labels}:{SIZE // 2 + 1}: label for '{drafted.id}' is of other content"
    )


@pytest.mark.slow
def test_a_judged_log_of_another_task(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (gold,) = write_runs(tmp_path / "gold", 3, ("v3",))
    _, labels = labelled
    argv = ["estimate", str(gold), "--sample", str(tmp_path / "sample" / "sample.json")]
    argv += ["--labels", str(labels), "--period", "W1", "--out", str(tmp_path / "out")]
    line = _one_error(capsys, run(argv))
    assert line.startswith(f"{gold}: a log of judge_groundedness, not of judge_production")


@pytest.mark.slow
def test_logs_that_miss_drafts_of_the_period(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, labels = labelled
    shard = tmp_path / "shard"
    judge_period(period.drafts_file, shard, shard="0/2")
    argv = ["estimate", str(shard), "--sample", str(tmp_path / "sample" / "sample.json")]
    argv += ["--labels", str(labels), "--period", "W1", "--out", str(tmp_path / "out")]
    line = _one_error(capsys, run(argv))
    assert "the logs hold" in line and f"of the period's {COUNT} drafts: a shard's log" in line


@pytest.mark.slow
def test_a_sampled_draft_the_judge_never_judged(
    period: Period, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    down = {d for d in range(COUNT) if d % 4 == 1}
    logs = tmp_path / "logs"
    judge_period(period.drafts_file, logs, outage=down)
    sample = _sample(period, tmp_path / "sample")
    label_sample(tmp_path / "labels.jsonl", period.drafts, sample)
    argv = ["estimate", str(logs), "--sample", str(tmp_path / "sample" / "sample.json")]
    argv += ["--labels", str(tmp_path / "labels.jsonl"), "--period", "W1"]
    line = _one_error(capsys, run([*argv, "--out", str(tmp_path / "out")]))
    first = next(d for d in sample.ids if index_of(period.drafts)[d] in down)
    assert f"sampled draft {first!r}" in line and "errored in the judge_production run" in line
    assert "`inspect eval-retry LOG` judges it again" in line


@pytest.mark.slow
def test_a_decision_of_another_judge(
    period: Period,
    labelled: tuple[AuditSample, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, labels = labelled
    decision = tmp_path / "decision.json"
    write_decision(decision, model="openai/gpt-4o-mini")
    line = _refused(period, tmp_path, [labels], capsys, "--decision", str(decision))
    assert line.startswith(f"{decision}: prefers v3 on openai/gpt-4o-mini, but ")
    assert "was judged by v3 on mockllm/model" in line


def test_a_sample_larger_than_the_period(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, 3)
    code = run(["sample", "--drafts", str(drafts), "--size", "5", "--out", str(tmp_path / "s")])
    assert _one_error(capsys, code) == "--size 5: the period has 3 drafts"
    assert not (tmp_path / "s").exists()


def test_the_sample_of_a_stratified_design_needs_its_judged_logs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, 3)
    argv = ["sample", "--drafts", str(drafts), "--size", "2", "--flagged", "1"]
    assert _one_error(capsys, run(argv)).startswith(
        "--flagged, --decision and --escalated draw a stratified"
    )
