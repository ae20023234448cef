"""`judge-audit estimate` with several annotators' labels of one week's sample, in-process: each
answer's label the mean of its annotators', their agreement in the record and the report; and
the label files it refuses, one line each with nothing written."""

import json
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from farejudge.audit.cli import run
from farejudge.audit.estimate.statistics import estimate_period
from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.record.schema import AuditRecord
from farejudge.audit.stats.agreement import judge_agreement
from farejudge.audit.stats.design import AuditSample
from farejudge.labelling.label_file import append_label
from farejudge.raters import cohen_kappa, krippendorff_alpha
from farejudge.testing.production_runs import ungrounded
from tests.support.audit_runs import index_of, label_sample, truth_label
from tests.support.audit_samples import Week, draw, judged_week, refusal

COUNT = 60
SIZE = 30
SECOND = "test-annotator-b"


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> Week:
    return judged_week(tmp_path_factory.mktemp("week"), COUNT)


@pytest.fixture
def sample(week: Week, tmp_path: Path) -> AuditSample:
    """The week's sample in tmp_path/sample, labelled in full by "ana" (labels.jsonl)."""
    return draw(week, tmp_path / "sample", size=SIZE)


def _estimate(week: Week, root: Path, labels: list[Path]) -> int:
    argv = ["estimate", str(week.logs), "--sample", str(root / "sample" / "sample.json")]
    argv += ["--labels", *(str(path) for path in labels)]
    return run([*argv, "--period", "W1", "--out", str(root / "audit"), "--quiet"])


@pytest.mark.slow
def test_two_annotators_who_differ_give_each_answer_their_mean(
    week: Week, sample: AuditSample, tmp_path: Path
) -> None:
    first = tmp_path / "sample" / "labels.jsonl"
    second = tmp_path / "b.jsonl"
    # The second annotator labels the first 20 drafts, 4 of them against the truth.
    against = frozenset(sample.ids[:4])
    label_sample(second, week.drafts, sample, count=20, annotator=SECOND, against=against)
    assert _estimate(week, tmp_path, [first, second]) == 0
    record = AuditRecord.model_validate_json(
        (tmp_path / "audit" / "audit.json").read_text(encoding="utf-8")
    )

    numbers = index_of(week.drafts)
    truth = np.array([float(ungrounded(numbers[draft])) for draft in sample.ids])
    theirs = np.where(np.isin(sample.ids, list(against)), 1 - truth, truth)
    theirs[20:] = np.nan
    mean = np.nanmean(np.column_stack([truth, theirs]), axis=1)
    assert set(np.unique(mean)) == {0.0, 0.5, 1.0}
    judged = read_judged([str(week.logs)])
    where = judged.positions(sample.ids)
    expected = estimate_period(judged.verdict, [where[d] for d in sample.ids], mean)
    assert record.estimate.rate.figure.estimate == pytest.approx(expected.rate.estimate, abs=1e-12)
    assert record.estimate.rate.figure.low == pytest.approx(expected.rate.interval.low, abs=1e-12)

    raters = record.raters
    assert raters is not None and raters.label == "mean"
    assert [(r.annotator, r.labelled) for r in raters.annotators] == [("ana", SIZE), (SECOND, 20)]
    assert raters.multiply_labelled == 20 and raters.disagreements == 4
    (pair,) = raters.pairs
    assert (pair.shared, pair.agreed) == (20, 16)
    assert pair.kappa == pytest.approx(cohen_kappa(truth, theirs), abs=1e-12)
    both = np.column_stack([truth, theirs])
    assert raters.alpha.estimate == pytest.approx(krippendorff_alpha(both), abs=1e-12)
    low, estimate = raters.alpha.low, raters.alpha.estimate
    assert low is not None and estimate is not None and low <= estimate
    # Labels between 0 and 1: no binomial interval on a count.
    assert record.estimate.labels_only.wilson is None
    # The judge against each answer's majority label: the 4 split evenly have none.
    assert raters.ties == 4
    kept = ~np.isin(sample.ids, list(against))
    predicted = judged.verdict[[where[d] for d in sample.ids]]
    agreed = judge_agreement(truth[kept], predicted[kept])
    a = record.agreement
    assert a is not None
    assert (a.positives, a.misses, a.negatives, a.false_alarms, a.failures) == (
        agreed.positives,
        agreed.misses,
        agreed.negatives,
        agreed.false_alarms,
        agreed.failures,
    )
    assert a.positives + a.negatives + a.failures == SIZE - 4
    assert record.agreement_note == (
        "against each answer's majority label: the annotators differ on 4 answers; the 4 they "
        "split evenly have none and are left out"
    )
    # A record whose agreement counts the even splits too is refused.
    counted = record.model_dump(mode="json")
    counted["raters"]["ties"] = 0
    with pytest.raises(ValidationError, match="are not the sample's 30 labelled"):
        AuditRecord.model_validate(counted)
    # A record that claims a count interval over labels its annotators split is refused.
    claimed = record.model_dump(mode="json")
    claimed["estimate"]["labels_only"]["wilson"] = claimed["estimate"]["labels_only"]["mean"]
    with pytest.raises(ValidationError, match="its annotators differing"):
        AuditRecord.model_validate(claimed)
    text = (tmp_path / "audit" / "audit.md").read_text(encoding="utf-8")
    assert "## The annotators" in text and f"ana and {SECOND}" in text
    assert "average annotator" in text and "whose label is no count" in text
    assert "Measured against each answer's majority label" in text


@pytest.mark.slow
def test_two_annotators_who_agree_keep_every_figure_of_one(
    week: Week, sample: AuditSample, tmp_path: Path
) -> None:
    first = tmp_path / "sample" / "labels.jsonl"
    assert _estimate(week, tmp_path, [first]) == 0
    alone = json.loads((tmp_path / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert "raters" not in alone
    label_sample(tmp_path / "b.jsonl", week.drafts, sample, annotator=SECOND)
    (tmp_path / "alone").mkdir()
    (tmp_path / "audit").rename(tmp_path / "alone" / "audit")
    assert _estimate(week, tmp_path, [first, tmp_path / "b.jsonl"]) == 0
    both = json.loads((tmp_path / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert both["raters"]["disagreements"] == 0
    assert both["raters"]["pairs"][0]["kappa"] == pytest.approx(1.0)
    assert both["estimate"] == alone["estimate"] and both["agreement"] == alone["agreement"]


@pytest.mark.slow
def test_two_files_of_one_annotator(
    week: Week, sample: AuditSample, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "sample" / "labels.jsonl"
    again = tmp_path / "again.jsonl"
    label_sample(again, week.drafts, sample, count=3)
    line = refusal(_estimate(week, tmp_path, [first, again]), capsys)
    assert line.startswith(f"{again}: labels by 'ana', as {first} holds: two files of one")
    assert not (tmp_path / "audit").exists()


@pytest.mark.slow
def test_a_labels_file_of_two_annotators(
    week: Week, sample: AuditSample, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mixed = tmp_path / "sample" / "labels.jsonl"
    draft = {d.id: d for d in week.drafts}[sample.ids[0]]
    append_label(mixed, truth_label(draft, index_of(week.drafts)[draft.id], SECOND))
    line = refusal(_estimate(week, tmp_path, [mixed]), capsys)
    assert line.startswith(f"{mixed}:{SIZE + 1}: label by {SECOND!r}, but {mixed}:1 is by 'ana'")
    assert not (tmp_path / "audit").exists()


@pytest.mark.slow
def test_a_second_annotator_of_another_weeks_drafts(
    week: Week, sample: AuditSample, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = tmp_path / "sample" / "labels.jsonl"
    outside = next(d for d in week.drafts if d.id not in sample.ids)
    other = tmp_path / "b.jsonl"
    append_label(other, truth_label(outside, index_of(week.drafts)[outside.id], SECOND))
    line = refusal(_estimate(week, tmp_path, [first, other]), capsys)
    assert line.startswith(f"{other}:1: label for '{outside.id}' names a draft outside")
    assert not (tmp_path / "audit").exists()
