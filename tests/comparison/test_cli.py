"""judge-compare on logs of scripted mockllm runs of three prompt versions.

The script, per case (right / wrong), is built so the flips are known:

    case       v1     v2     v3 (good)
    conv-004   wrong  right  right      pinned: v2 fixed it
    fresh-001  wrong  wrong  right      pinned: v3 fixed it
    t-conv     wrong  right  right
    t-price    right  right  right      the v3 variants below break this one
    t-silence  right  wrong  right      v2 broke it, v3 fixed it again
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from farejudge.comparison.cli import EXIT_GATE, EXIT_INPUT, EXIT_OK, run
from farejudge.comparison.logs.frame import SPAN_COUNTS, load_runs
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import mcnemar_exact
from tests.support.scripted_cases import run_version, write_cases

V1 = {"conv-004": "wrong", "fresh-001": "wrong", "t-conv": "wrong"}
V2 = {"fresh-001": "wrong", "t-silence": "wrong"}
V3_GOOD: dict[str, str] = {}
V3_BREAKS_PRICE = {"t-price": "wrong"}
V3_FAILS_PINNED = {"fresh-001": "wrong"}
V3_JUDGE_FAILURE = {"t-price": "failure"}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Folders of logs: "base" holds v1 and v2; each other one holds a v3 variant."""
    root = tmp_path_factory.mktemp("logs")
    cases = write_cases(root / "cases.jsonl")
    run_version("v1", V1, cases, root / "base")
    run_version("v2", V2, cases, root / "base")
    variants = {
        "good": V3_GOOD,
        "breaks": V3_BREAKS_PRICE,
        "pinned": V3_FAILS_PINNED,
        "failure": V3_JUDGE_FAILURE,
    }
    for name, script in variants.items():
        run_version("v3", script, cases, root / name)
    return {name: root / name for name in ["base", *variants]}


def compare(logs: dict[str, Path], variant: str, out: Path, *extra: str) -> tuple[int, str]:
    code = run(
        [
            str(logs["base"]),
            str(logs[variant]),
            "--out",
            str(out),
            "--quiet",
            "--resamples",
            "200",
            *extra,
        ]
    )
    return code, (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_known_flips_per_version(logs: dict[str, Path]) -> None:
    report = build_report(load_runs([str(logs["base"]), str(logs["good"])]), Resampling(200))
    assert report.runs.versions == ["v1", "v2", "v3"]
    flips = {
        (t.before, t.after): ([f.case for f in t.fixed], [f.case for f in t.broken])
        for t in report.verdicts.transitions
    }
    assert flips == {
        ("v1", "v2"): (["conv-004", "t-conv"], ["t-silence"]),
        ("v2", "v3"): (["fresh-001", "t-silence"], []),
    }
    accuracy = {s.version: s.accuracy.estimate for s in report.verdicts.summaries}
    assert accuracy == pytest.approx({"v1": 2 / 5, "v2": 3 / 5, "v3": 1.0})
    assert all(check.holds for check in report.verdicts.pinned)


@pytest.mark.slow
def test_good_newest_version_passes_the_gate(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, md = compare(logs, "good", tmp_path)
    assert code == EXIT_OK
    assert "gate: passed" in capsys.readouterr().err
    assert "## Gate: PASSED" in md
    assert "| conv-004 | conv | fixed | ungrounded (1 claim) | grounded |" in md
    assert "| t-silence | conv | broken |" not in md
    assert "| t-silence | silence | broken | grounded | ungrounded (1 claim) |" in md
    assert "| fresh-001 | v3 | mockllm/model | holds |" in md
    assert "| conv-004 | v2 | mockllm/model | holds | — | holds | holds |" in md
    assert "exact McNemar p = " in md
    # Every figure in the version table carries an interval.
    summary = md.split("## By version and model")[1].split("##")[0]
    for row in [line for line in summary.splitlines() if line.startswith("| v")]:
        assert row.count("[") == 12, row

    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    # Summary, flips, categories, confusion; and the graded curves: these logs' scripted
    # judges give the verdict itself as their graded score.
    assert html.count('src="data:image/png;base64,') == 5
    assert "http" not in html.split("<body>")[0], "the page must not load external assets"
    assert "fresh-001" in html


@pytest.mark.slow
def test_newest_version_breaking_a_case_fails_the_gate_and_names_it(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, md = compare(logs, "breaks", tmp_path)
    assert code == EXIT_GATE
    err = capsys.readouterr().err
    assert "gate: FAILED (1)" in err
    assert "v3 breaks t-price with mockllm/model: v2 was right" in err
    assert "FAIL: v3 breaks t-price" in md


@pytest.mark.slow
def test_an_allowed_case_does_not_fail_the_gate(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, md = compare(logs, "breaks", tmp_path, "--allow", "t-price")
    assert code == EXIT_OK
    assert "allowed: v3 breaks t-price" in md

    allow_file = tmp_path / "allow.txt"
    allow_file.write_text("# known: the price case regressed in v3\nt-price  # issue 12\n")
    code, _ = compare(logs, "breaks", tmp_path, "--allow-file", str(allow_file))
    assert code == EXIT_OK


@pytest.mark.slow
def test_failing_pinned_case_fails_the_gate(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, md = compare(logs, "pinned", tmp_path)
    assert code == EXIT_GATE
    err = capsys.readouterr().err
    assert "pinned case fresh-001 (fixed by v3) is wrong on v3" in err
    assert "| fresh-001 | v3 | mockllm/model | FAILS |" in md


@pytest.mark.slow
def test_judge_failure_counts_against_the_version_visibly(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, md = compare(logs, "failure", tmp_path)
    assert code == EXIT_GATE
    assert "v3 breaks t-price with mockllm/model" in capsys.readouterr().err
    assert "| t-price | price | broken | ungrounded (1 claim) | judge failure |" in md
    assert "judge failures: v3 with mockllm/model: 1 judge failure(s)" in md
    v3 = next(line for line in md.splitlines() if line.startswith("| v3 | mockllm/model | 5 |"))
    assert "| 1 (rate 0.20 [" in v3


def test_unusable_input_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(tmp_path / "nowhere")]) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.startswith("judge-compare: error: ") and err.count("\n") == 1

    (tmp_path / "empty").mkdir()
    assert run([str(tmp_path / "empty")]) == EXIT_INPUT
    assert "no Inspect logs" in capsys.readouterr().err


@pytest.mark.slow
def test_missing_allow_file_exits_2(
    logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run([str(logs["base"]), "--allow-file", str(tmp_path / "none.txt")])
    assert code == EXIT_INPUT
    assert "--allow-file" in capsys.readouterr().err


@pytest.mark.subprocess
def test_console_script_exit_code(logs: dict[str, Path], tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from comparison.cli import main; raise SystemExit(main())",
            str(logs["base"]),
            str(logs["breaks"]),
            "--out",
            str(tmp_path),
            "--resamples",
            "50",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == EXIT_GATE
    assert "# Judge comparison" in done.stdout
    assert "t-price" in done.stderr


@pytest.mark.slow
def test_stability_across_epochs(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases.jsonl")
    run_version("v3", {"t-conv": "flaky"}, cases, tmp_path / "logs", epochs=3)
    code = run(
        [str(tmp_path / "logs"), "--out", str(tmp_path / "out"), "--quiet", "--resamples", "100"]
    )
    md = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert code == EXIT_OK
    assert "## Stability across epochs" in md
    # Flaky alternates wrong, right, wrong over the three calls; t-conv is grounded in gold.
    assert "| v3 | mockllm/model | t-conv | conv | grounded: 1, ungrounded: 2 |" in md
    assert "| v3 | mockllm/model | 5 | 1 (share 0.20 [" in md


@pytest.mark.slow
def test_point_estimates_equal_inspects_own_metrics_over_epochs(tmp_path: Path) -> None:
    """Per-epoch rows averaged per case give what Inspect's epoch-mean metrics give."""
    cases = write_cases(tmp_path / "cases.jsonl")
    script = {"t-conv": "flaky", "t-price": "failure", "fresh-001": "flaky"}
    log = run_version("v2", script, cases, tmp_path / "logs", epochs=3)
    assert log.results is not None
    (scores,) = [s for s in log.results.scores if s.name == "verdict_agreement"]
    inspect = {name: m.value for name, m in scores.metrics.items()}
    (s,) = build_report(load_runs([str(tmp_path / "logs")]), Resampling(50)).verdicts.summaries
    ours = {
        "verdict_accuracy": s.accuracy,
        "judge_failure_rate": s.failure_rate,
        "balanced_accuracy": s.balanced_accuracy,
        "precision": s.precision,
        "recall": s.recall,
        "f1": s.f1,
        "cohen_kappa": s.kappa,
        "claim_precision": s.claim_precision,
        "claim_recall": s.claim_recall,
        "span_precision": s.span_precision,
        "span_recall": s.span_recall,
        "span_f1": s.span_f1,
    }
    assert {k: v.estimate for k, v in ours.items()} == pytest.approx(
        {k: inspect[k] for k in ours}, nan_ok=True
    )


def _without_span_counts(log: Path, out: Path) -> Path:
    """A copy of the log as written before the scorer counted span characters."""
    old = read_eval_log(str(log))
    for sample in old.samples or []:
        value = sample.scores["verdict_agreement"].value  # type: ignore[index]
        assert isinstance(value, dict)
        for key in SPAN_COUNTS:
            del value[key]
    out.mkdir(parents=True, exist_ok=True)
    write_eval_log(old, str(out / log.name))
    return out


def _version(log: Path) -> object:
    return (read_eval_log(str(log), header_only=True).eval.metadata or {}).get("prompt_version")


@pytest.mark.slow
def test_a_log_from_before_span_scores_still_compares(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    (v1,) = [p for p in logs["base"].glob("*.eval") if _version(p) == "v1"]
    old = _without_span_counts(v1, tmp_path / "old")
    code, md = compare_dirs([old, logs["good"]], tmp_path / "report")
    assert code == EXIT_OK, md
    summary = md.split("## By version and model")[1].split("##")[0]
    rows = {row.split(" | ")[0]: row for row in summary.splitlines() if row.startswith("| v")}
    assert rows["| v1"].endswith("| n/a | n/a | n/a |")
    assert rows["| v1"].count("[") == 9
    assert rows["| v3"].count("[") == 12


def _with_gold(cases: Path, case_id: str, label: dict[str, object], out: Path) -> Path:
    """The same case file with one case's gold label replaced."""
    lines = []
    for line in cases.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["id"] == case_id:
            record["label"] = label
        lines.append(json.dumps(record, ensure_ascii=False))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.mark.slow
def test_a_case_whose_gold_changed_between_runs_is_listed_and_never_a_flip(
    tmp_path: Path,
) -> None:
    """v2 ran on the old gold of t-price, v3 on a corrected one: not a fix, a different case."""
    old = write_cases(tmp_path / "old.jsonl")
    new = _with_gold(
        old, "t-price", {"grounded": True, "unsupported_claims": []}, tmp_path / "new.jsonl"
    )
    # v2 is wrong on t-price under the old gold, v3 right under the new: paired by id, a "fix".
    run_version("v2", {**V2, "t-price": "wrong"}, old, tmp_path / "changed")
    run_version("v3", V3_GOOD, new, tmp_path / "changed")
    run_version("v2", V2, old, tmp_path / "same")
    run_version("v3", V3_GOOD, old, tmp_path / "same")

    changed = build_report(load_runs([str(tmp_path / "changed")]), Resampling(200))
    same = build_report(load_runs([str(tmp_path / "same")]), Resampling(200))

    (t,) = changed.verdicts.transitions
    (u,) = same.verdicts.transitions
    assert t.changed == ["t-price"] and u.changed == []
    assert [f.case for f in t.fixed] == [f.case for f in u.fixed] == ["fresh-001", "t-silence"]
    assert t.broken == u.broken == []
    assert (t.shared, t.p_value) == (u.shared - 1, mcnemar_exact(2, 0))
    code, text = compare_dirs([tmp_path / "changed"], tmp_path / "report")
    assert code == EXIT_OK
    section = text.split("## Changed between runs: not compared")[1].split("\n## ")[0]
    assert "| t-price | v2 | v3 | mockllm/model |" in section


@pytest.mark.slow
def test_a_perfect_judge_on_other_cases_passes_with_pinned_cases_not_in_the_case_set(
    tmp_path: Path,
) -> None:
    cases = write_cases(tmp_path / "own.jsonl", extra_ids=[])
    for version in ("v1", "v2", "v3"):
        run_version(version, {}, cases, tmp_path / "logs")
    code, text = compare_dirs([tmp_path / "logs"], tmp_path / "report")
    assert code == EXIT_OK, text
    pinned = text.split("## Pinned cases")[1].split("\n## ")[0]
    assert "| conv-004 | v2 | mockllm/model | not in this case set |" in pinned
    assert "| fresh-001 | v3 | mockllm/model | not in this case set |" in pinned


@pytest.mark.slow
def test_runs_with_no_case_in_common_are_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ours = write_cases(tmp_path / "ours.jsonl", extra_ids=[])
    theirs = write_cases(tmp_path / "theirs.jsonl", extra_ids=["conv-004", "fresh-001"])
    only_pinned = tmp_path / "pinned.jsonl"
    only_pinned.write_text(
        "".join(line + "\n" for line in theirs.read_text().splitlines()[-2:]), encoding="utf-8"
    )
    run_version("v2", {}, ours, tmp_path / "logs")
    run_version("v3", {}, only_pinned, tmp_path / "logs")
    capsys.readouterr()
    code = run([str(tmp_path / "logs"), "--out", str(tmp_path / "report"), "--quiet"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INPUT
    assert err == [
        "judge-compare: error: the v2 and v3 runs with mockllm/model have no case id in "
        "common: nothing to compare"
    ]


def compare_dirs(dirs: list[Path], out: Path) -> tuple[int, str]:
    code = run([*(str(d) for d in dirs), "--out", str(out), "--quiet", "--resamples", "200"])
    return code, (out / "report.md").read_text(encoding="utf-8")
