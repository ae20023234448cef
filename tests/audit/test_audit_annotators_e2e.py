"""An audit week with two annotators on each sampled answer, end to end with the installed
commands: `judge-audit sample` draws each of two weeks the scripted judge judged, two annotators
label every sampled answer (their labels files written as judge-label writes them, the second
annotator against the truth on a few), `judge-audit estimate` reads both files and `judge-audit
trend` the two weeks. audit.json and trend.json are checked against the schemas `judge-audit
schema` prints and the estimate against the statistics on the annotators' mean labels."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest

from farejudge.audit.estimate import estimate_period
from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.record import AuditRecord, TrendRecord
from farejudge.audit.stats.agreement import judge_agreement
from farejudge.audit.stats.design import AuditSample
from farejudge.testing.production_runs import ungrounded
from tests.support.audit_runs import index_of, label_sample, write_decision
from tests.support.audit_samples import judged_week

BIN = Path(sys.executable).parent
SECOND = "test-annotator-b"
WEEKS = {"2026-W48": (60, 11), "2026-W49": (50, 12)}
SIZE, AGAINST = 24, 3


def _command(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / argv[0]), *argv[1:]], cwd=cwd, capture_output=True, text=True, timeout=300
    )


@pytest.mark.subprocess
def test_an_audit_week_with_two_annotators_on_each_sampled_answer(tmp_path: Path) -> None:
    schemas = {}
    for name in ("audit", "trend"):
        printed = _command(tmp_path, "judge-audit", "schema", name)
        assert printed.returncode == 0, printed.stderr
        schemas[name] = json.loads(printed.stdout)
    write_decision(tmp_path / "decision.json")
    audits = []
    for week, (count, seed) in WEEKS.items():
        judged = judged_week(tmp_path / week, count)
        drawn = _command(
            tmp_path,
            *("judge-audit", "sample", "--drafts", f"{week}/drafts.jsonl"),
            *("--size", str(SIZE), "--seed", str(seed), "--out", f"{week}/sample"),
        )
        assert drawn.returncode == 0, drawn.stderr
        sample = AuditSample.model_validate_json(
            (tmp_path / week / "sample" / "sample.json").read_text(encoding="utf-8")
        )
        labels = tmp_path / week / "sample" / "labels"
        against = frozenset(sample.ids[:AGAINST])
        label_sample(labels / "ana.jsonl", judged.drafts, sample)
        label_sample(labels / f"{SECOND}.jsonl", judged.drafts, sample, None, SECOND, against)
        estimated = _command(
            tmp_path,
            *("judge-audit", "estimate", f"{week}/logs"),
            *("--sample", f"{week}/sample/sample.json", "--labels"),
            *(f"{week}/sample/labels/ana.jsonl", f"{week}/sample/labels/{SECOND}.jsonl"),
            *("--period", week, "--decision", "decision.json"),
            *("--out", f"{week}/audit", "--quiet"),
        )
        assert estimated.returncode == 0, estimated.stderr
        written = json.loads((tmp_path / week / "audit" / "audit.json").read_text(encoding="utf-8"))
        jsonschema.validate(written, schemas["audit"])
        record = AuditRecord.model_validate(written)

        numbers = index_of(judged.drafts)
        truth = np.array([float(ungrounded(numbers[d])) for d in sample.ids])
        mean = np.where(np.isin(sample.ids, list(against)), 0.5, truth)
        period = read_judged([str(judged.logs)])
        where = period.positions(sample.ids)
        expected = estimate_period(period.verdict, [where[d] for d in sample.ids], mean)
        rate = record.estimate.rate.figure
        assert rate.estimate == pytest.approx(expected.rate.estimate, abs=1e-12)
        assert rate.high == pytest.approx(expected.rate.interval.high, abs=1e-12)
        assert record.sample.annotators == ["ana", SECOND]
        raters = record.raters
        assert raters is not None
        assert [r.labelled for r in raters.annotators] == [SIZE, SIZE]
        assert (raters.multiply_labelled, raters.disagreements) == (SIZE, AGAINST)
        assert (raters.pairs[0].shared, raters.pairs[0].agreed) == (SIZE, SIZE - AGAINST)
        # The judge against the majority label: the answers they split evenly are left out.
        assert raters.ties == AGAINST
        kept = ~np.isin(sample.ids, list(against))
        agreed = judge_agreement(truth[kept], period.verdict[[where[d] for d in sample.ids]][kept])
        a = record.agreement
        assert a is not None and (a.positives, a.misses, a.negatives, a.false_alarms) == (
            agreed.positives,
            agreed.misses,
            agreed.negatives,
            agreed.false_alarms,
        )
        report = (tmp_path / week / "audit" / "audit.md").read_text(encoding="utf-8")
        assert "## The annotators" in report
        audits.append(f"{week}/audit/audit.json")

    trend = _command(
        tmp_path,
        "judge-audit",
        "trend",
        *audits,
        "--decision",
        "decision.json",
        "--out",
        "trend",
        "--quiet",
    )
    assert trend.returncode == 0, trend.stderr
    written = json.loads((tmp_path / "trend" / "trend.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, schemas["trend"])
    record_trend = TrendRecord.model_validate(written)
    assert [p.period for p in record_trend.periods] == list(WEEKS)
    # The annotators differ on both weeks, and the drift detector still counts both: the
    # judge's sensitivity and specificity against the majority label.
    assert record_trend.drift.periods == list(WEEKS)
