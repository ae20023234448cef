"""The graded sections: where ranking and accuracy tell different stories, a score from one
epoch, logs without scores, the page's plot, the target recall, and judge-compare on logs
with graded scores."""

import json
import zlib
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from sklearn.metrics import roc_auc_score

from farejudge.comparison.cli import EXIT_OK, run
from farejudge.comparison.graded.sections import graded_sections
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.report.build import Report, build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.shared.document import html, markdown
from tests.support.frame_rows import row, runs
from tests.support.graded_rows import GOLD, graded_rows, score_of
from tests.support.scripted_cases import run_version, write_cases


def graded_text(report: Report) -> str:
    """The graded sections as Markdown, from the report's graded and verdict results."""
    return markdown.render(
        graded_sections(report.graded, report.verdicts.transitions, report.runs.models)
    )


def test_the_report_says_when_ranking_improved_while_accuracy_did_not() -> None:
    report = build_report(runs(graded_rows("v1") + graded_rows("v2")), Resampling(100))
    md = graded_text(report)
    (transition,) = report.verdicts.transitions
    assert transition.fixed == [] and transition.broken == []
    assert "v1 → v2 with m: the graded score ranks ungrounded answers better" in md
    assert "while accuracy did not improve" in md


def test_the_report_says_when_accuracy_improved_while_ranking_did_not() -> None:
    # One score for every case on both versions: the ranking cannot move. v2 fixes ten.
    same = {f"c-{i:02}": {"p_ungrounded": 0.5} for i in range(len(GOLD))}
    rows = graded_rows("v1", wrong=10, changes=same) + graded_rows("v2", changes=same)
    report = build_report(runs(rows), Resampling(100))
    (transition,) = report.verdicts.transitions
    assert len(transition.fixed) == 10 and transition.p_value < 0.05
    md = graded_text(report)
    assert "accuracy improved" in md and "while the graded score's ranking did not" in md


def test_a_graded_score_from_one_epoch_is_called_the_verdict() -> None:
    rows = [
        row(f"c-{i}", g, g, p_ungrounded=float(g), graded_source="epochs")
        for i, g in enumerate(GOLD)
    ]
    report = build_report(runs(rows), Resampling(50))
    md = graded_text(report)
    assert "20 of 20 cases have a graded score from a single epoch" in md
    assert "judge-matrix --epochs N" in md


def test_logs_without_graded_scores_get_one_line() -> None:
    report = build_report(runs([row("c-0", 1, 1), row("c-1", 0, 0)]), Resampling(50))
    (section,) = graded_sections(report.graded, report.verdicts.transitions, report.runs.models)
    assert "No case in these logs has a graded score" in section.lines[0]
    assert html.render([section]).count("data:image/png") == 0


def test_report_and_page_carry_the_graded_sections() -> None:
    report = build_report(
        runs(graded_rows("v1") + graded_rows("v2", wrong=4) + graded_rows("v3")), Resampling(100)
    )
    parts = sections(report, evaluate(report.verdicts, report.runs, set()))
    md = markdown.render(parts)
    table = md.split("## Graded score: ranking and calibration")[1].split("\n## ")[0]
    runs_rows = [line for line in table.splitlines() if line.startswith("| v")]
    # Per run: its figures; then 3 budget rows each; then the non-empty calibration bins.
    assert [r.split(" | ")[0] for r in runs_rows[:3]] == ["| v1", "| v2", "| v3"]
    assert sum(" | 10 % | 2 | " in r for r in runs_rows) == 3
    assert "## Graded score between versions" in md
    assert "| v1 → v2 | m | 20 |" in md and "| v2 → v3 | m | 20 |" in md
    page = html.render(parts)
    assert 'alt="graded plot"' in page


def test_target_recall_reaches_the_report() -> None:
    report = build_report(runs(graded_rows("v2")), Resampling(50), target_recall=0.5)
    assert report.graded is not None
    (s,) = report.graded.summaries
    assert s.figures is not None
    assert s.figures.target_recall.target == 0.5
    # v2 ranks all ten ungrounded cases first: half of them are the top five.
    assert s.figures.target_recall.review_share.estimate == pytest.approx(5 / 20)
    assert "Cut-off for 50 % recall" in graded_text(report)


def _with_graded_scores(log: Path, out: Path) -> None:
    """The log as a judge with a graded score would have written it: P(ungrounded) per sample."""
    written = read_eval_log(str(log))
    version = str((written.eval.metadata or {})["prompt_version"])
    for sample in written.samples or []:
        value = sample.scores["verdict_agreement"].value  # type: ignore[index]
        assert isinstance(value, dict)
        gold = 0 if json.loads(str(sample.target))["grounded"] else 1
        case = zlib.crc32(str(sample.id).encode())
        value["p_ungrounded"] = score_of(version, case, gold)
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
    report = build_report(loaded, Resampling(200))
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
