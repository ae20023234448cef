"""The graded score in the comparison: per run, between versions, in the report and its page."""

import json
import math
import zlib
from collections.abc import Mapping
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from sklearn.metrics import roc_auc_score

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK, run
from farejudge.comparison.figures import build_report
from farejudge.comparison.gate import evaluate
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.report import html, markdown
from farejudge.comparison.report.graded_sections import graded_sections
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.graded_runs import ALL_FAILED, NO_SCORE
from tests.support.frame_rows import row, runs
from tests.support.scripted_cases import run_version, write_cases

GOLD = [1, 0] * 10
"""Twenty cases, every other one ungrounded."""


def _score(version: str, case: int, gold: int) -> float:
    """v1 ranks the cases at random; v2 puts every ungrounded one above every grounded one."""
    noise = zlib.crc32(f"{version}/{case}".encode()) % 100 / 100
    return 0.5 + 0.4 * noise if version == "v2" and gold else 0.4 * noise + 0.3 * (version == "v1")


def _rows(
    version: str, wrong: int = 0, changes: Mapping[str, Mapping[str, object]] | None = None
) -> list[dict[str, object]]:
    """Every case judged right but the first `wrong` ones, each with its graded score; `changes`
    overrides columns of named cases."""
    rows = []
    for i, gold in enumerate(GOLD):
        judged = 1 - gold if i < wrong else gold
        found = row(
            f"c-{i:02}",
            gold,
            judged,
            version=version,
            p_ungrounded=_score(version, i, gold),
            graded_source="logprobs",
        )
        rows.append({**found, **(changes or {}).get(str(found["case"]), {})})
    return rows


def test_cases_without_a_graded_score_are_left_out_and_counted_with_why() -> None:
    rows = _rows(
        "v1",
        changes={
            "c-00": {"p_ungrounded": math.nan, "graded_source": "none"},
            "c-01": {"p_ungrounded": math.nan, "graded_source": "none", "failure": 1.0},
        },
    )
    graded = build_report(runs(rows), resamples=100).graded
    assert graded is not None
    (s,) = graded.summaries
    assert (s.graded, s.ungraded, s.sources) == (18, {ALL_FAILED: 1, NO_SCORE: 1}, {"logprobs": 18})
    assert s.figures is not None
    kept = [r for r in rows if not math.isnan(float(r["p_ungrounded"]))]  # type: ignore[arg-type]
    auc = roc_auc_score([r["gold_ungrounded"] for r in kept], [r["p_ungrounded"] for r in kept])
    assert s.figures.auc.estimate == pytest.approx(auc)


def test_a_case_graded_over_epochs_is_the_mean_of_its_epochs() -> None:
    rows = [
        row("c-0", 1, 1, epoch=e, p_ungrounded=p, graded_source="epochs")
        for e, p in ((1, 1.0), (2, 0.0), (3, 1.0))
    ] + [row("c-1", 0, 0, epoch=e, p_ungrounded=0.0, graded_source="epochs") for e in (1, 2, 3)]
    graded = build_report(runs(rows), resamples=50).graded
    assert graded is not None
    (s,) = graded.summaries
    assert s.verdict_only == 0
    assert s.figures is not None
    assert s.figures.brier.estimate == pytest.approx(((1 - 2 / 3) ** 2 + 0) / 2)


def test_pairs_are_cases_with_identical_content_and_a_score_on_both_sides() -> None:
    rows = _rows("v1") + _rows(
        "v2",
        changes={
            "c-00": {"case_hash": "edited"},
            "c-01": {"p_ungrounded": math.nan, "graded_source": "none"},
        },
    )
    report = build_report(runs(rows), resamples=100)
    assert report.graded is not None
    (c,) = report.graded.comparisons
    assert (c.before, c.after, c.paired, c.unpaired) == ("v1", "v2", 18, 1)
    # v2 separates the classes completely; v1 at random.
    assert c.delong.auc_after == 1.0 and c.delong.change.estimate > 0.3
    assert c.delong.p_value < 0.05 and c.brier.change.estimate < 0


def test_the_report_says_when_ranking_improved_while_accuracy_did_not() -> None:
    report = build_report(runs(_rows("v1") + _rows("v2")), resamples=100)
    md = markdown.render(graded_sections(report))
    (transition,) = report.transitions
    assert transition.fixed == [] and transition.broken == []
    assert "v1 → v2 with m: the graded score ranks ungrounded answers better" in md
    assert "while accuracy did not improve" in md


def test_the_report_says_when_accuracy_improved_while_ranking_did_not() -> None:
    # One score for every case on both versions: the ranking cannot move. v2 fixes ten.
    same = {f"c-{i:02}": {"p_ungrounded": 0.5} for i in range(len(GOLD))}
    rows = _rows("v1", wrong=10, changes=same) + _rows("v2", changes=same)
    report = build_report(runs(rows), resamples=100)
    (transition,) = report.transitions
    assert len(transition.fixed) == 10 and transition.p_value < 0.05
    md = markdown.render(graded_sections(report))
    assert "accuracy improved" in md and "while the graded score's ranking did not" in md


def test_a_graded_score_from_one_epoch_is_called_the_verdict() -> None:
    rows = [
        row(f"c-{i}", g, g, p_ungrounded=float(g), graded_source="epochs")
        for i, g in enumerate(GOLD)
    ]
    report = build_report(runs(rows), resamples=50)
    md = markdown.render(graded_sections(report))
    assert "20 of 20 cases have a graded score from a single epoch" in md
    assert "judge-matrix --epochs N" in md


def test_logs_without_graded_scores_get_one_line() -> None:
    report = build_report(runs([row("c-0", 1, 1), row("c-1", 0, 0)]), resamples=50)
    (section,) = graded_sections(report)
    assert "No case in these logs has a graded score" in section.lines[0]
    assert html.render(report, [section]).count("data:image/png") == 0


def test_report_and_page_carry_the_graded_sections() -> None:
    report = build_report(runs(_rows("v1") + _rows("v2", wrong=4) + _rows("v3")), resamples=100)
    parts = sections(report, evaluate(report, set()))
    md = markdown.render(parts)
    table = md.split("## Graded score: ranking and calibration")[1].split("\n## ")[0]
    runs_rows = [line for line in table.splitlines() if line.startswith("| v")]
    # Per run: its figures; then 3 budget rows each; then the non-empty calibration bins.
    assert [r.split(" | ")[0] for r in runs_rows[:3]] == ["| v1", "| v2", "| v3"]
    assert sum(" | 10 % | 2 | " in r for r in runs_rows) == 3
    assert "## Graded score between versions" in md
    assert "| v1 → v2 | m | 20 |" in md and "| v2 → v3 | m | 20 |" in md
    page = html.render(report, parts)
    assert 'alt="graded plot"' in page


def test_target_recall_reaches_the_report() -> None:
    report = build_report(runs(_rows("v2")), resamples=50, target_recall=0.5)
    assert report.graded is not None
    (s,) = report.graded.summaries
    assert s.figures is not None
    assert s.figures.target_recall.target == 0.5
    # v2 ranks all ten ungrounded cases first: half of them are the top five.
    assert s.figures.target_recall.review_share.estimate == pytest.approx(5 / 20)
    assert "Cut-off for 50 % recall" in markdown.render(graded_sections(report))


@pytest.mark.parametrize("value", ["0", "1.5", "nan"])
def test_a_target_recall_outside_0_1_is_a_one_line_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(tmp_path), "--target-recall", value, "--out", str(tmp_path)]) == EXIT_INPUT
    err = capsys.readouterr().err.strip()
    assert err == f"judge-compare: error: --target-recall {float(value)}: must be in (0, 1]"


def _with_graded_scores(log: Path, out: Path) -> None:
    """The log as a judge with a graded score would have written it: P(ungrounded) per sample."""
    written = read_eval_log(str(log))
    version = str((written.eval.metadata or {})["prompt_version"])
    for sample in written.samples or []:
        value = sample.scores["verdict_agreement"].value  # type: ignore[index]
        assert isinstance(value, dict)
        gold = 0 if json.loads(str(sample.target))["grounded"] else 1
        case = zlib.crc32(str(sample.id).encode())
        value["p_ungrounded"] = _score(version, case, gold)
        value["graded_source"] = "logprobs"
    out.mkdir(parents=True, exist_ok=True)
    write_eval_log(written, str(out / log.name))


@pytest.mark.slow
def test_judge_compare_on_logs_shows_the_graded_sections(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases.jsonl")
    for version in ("v1", "v2", "v3"):
        run_version(version, {}, cases, tmp_path / "raw")
    for log in (tmp_path / "raw").glob("*.eval"):
        _with_graded_scores(log, tmp_path / "logs")
    out = tmp_path / "report"
    code = run([str(tmp_path / "logs"), "--out", str(out), "--quiet", "--resamples", "200"])
    assert code == EXIT_OK
    md = (out / "report.md").read_text(encoding="utf-8")
    loaded = load_runs([str(tmp_path / "logs")])
    report = build_report(loaded, resamples=200)
    assert loaded.samples["p_ungrounded"].notna().all()
    assert report.graded is not None
    for s in report.graded.summaries:
        assert s.figures is not None
        cases_of_run = loaded.samples[loaded.samples["version"] == s.version]
        expected = roc_auc_score(cases_of_run["gold_ungrounded"], cases_of_run["p_ungrounded"])
        assert s.figures.auc.estimate == pytest.approx(expected)
        assert f"| {s.version} | mockllm/model | {s.graded} |" in md
    assert "## Graded score between versions" in md
    assert "| v1 → v2 | mockllm/model |" in md and "| v2 → v3 | mockllm/model |" in md
    assert 'alt="graded plot"' in (out / "report.html").read_text(encoding="utf-8")
