"""judge-compare killed at each step of writing its files (issue 62): the report's four files
(report.md, report.html, cases.jsonl, decision.json) and the suspects export are each the old
set or the new one whole, never a mix, and the next run sweeps what a killed one left.

The old report: one scripted judge of v3 over six synthetic cases. The new one: three judges,
all wrong on two cases, so that the panel has suspects to export."""

import json
from pathlib import Path

import pytest

from farejudge.comparison import cli
from farejudge.comparison.panel import suspects_export
from farejudge.comparison.panel.suspects_export import KEY
from farejudge.comparison.report import compare
from farejudge.core.atomic_files import write_together
from farejudge.core.decision_file import DECISION_FILE
from farejudge.evals.deployed_judge import load_decision
from farejudge.testing.synthetic_cases import write_cases
from tests.support.kill_points import Drills, drilled, held
from tests.support.scripted_cases import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
SUSPECTS = ["syn-00001", "syn-00003"]
REPORT = ["cases.jsonl", "decision.json", "report.html", "report.md"]


@pytest.mark.subprocess
def test_the_report_and_the_suspects_are_each_old_or_new_whole_at_every_kill_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = tmp_path / "cases.jsonl"
    write_cases(cases, 6)
    for logs, models in (("one", MODELS[:1]), ("three", MODELS)):
        for model in models:
            run_version("v3", dict.fromkeys(SUSPECTS, "wrong"), cases, tmp_path / logs, model=model)
    out, suspects = tmp_path / "report", tmp_path / "suspects"
    options = ["--out", str(out), "--quiet", "--resamples", "50"]
    assert cli.run([str(tmp_path / "one"), *options]) == cli.EXIT_OK
    old_decision = json.loads((out / DECISION_FILE).read_text(encoding="utf-8"))

    drills: Drills = {}
    # The production task's reader of decision.json (-T decision=), at each kill point.
    readers = {"report": lambda out: load_decision(str(out / DECISION_FILE))}
    monkeypatch.setattr(compare, "write_together", drilled(write_together, drills, readers))
    monkeypatch.setattr(suspects_export, "write_together", drilled(write_together, drills))
    new = [str(tmp_path / "three"), *options, "--suspects-out", str(suspects)]
    assert cli.run(new) == cli.EXIT_OK

    (report,) = drills["report"]
    held(report, "judge-compare's report")
    assert sorted(report.before) == sorted(report.after) == REPORT
    assert json.loads(report.before[DECISION_FILE]) == old_decision
    # The task read a decision at every kill point, never refused one.
    assert not [read for read in report.read if isinstance(read, str)]
    assert report.before[DECISION_FILE] != report.after[DECISION_FILE]
    (export,) = drills["suspects"]
    held(export, "judge-compare's suspects export")
    assert export.before == {} and KEY in export.after
    # The command's own write, after the drills: the files a reader finds by their paths.
    assert {n: (out / n).read_bytes() for n in REPORT} == report.after
    assert json.loads((out / DECISION_FILE).read_text(encoding="utf-8")) != old_decision
