"""audit.md as a person reads it: the files it rests on named as the user would type them."""

import json
from pathlib import Path

import pytest

from farejudge.audit.cli import run
from tests.support.audit_runs import write_decision
from tests.support.audit_samples import draw, judged_week


@pytest.mark.slow
def test_every_input_is_named_relative_to_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    week = judged_week(tmp_path / "week", 40)
    draw(week, tmp_path / "sample", size=20)
    write_decision(tmp_path / "decision.json")
    monkeypatch.chdir(tmp_path)
    # Every path given absolute, as a script would give them.
    argv = ["estimate", str(week.logs), "--sample", str(tmp_path / "sample" / "sample.json")]
    argv += ["--labels", str(tmp_path / "sample" / "labels.jsonl"), "--period", "W1"]
    argv += ["--decision", str(tmp_path / "decision.json"), "--out", "audit", "--quiet"]
    assert run(argv) == 0
    text = (tmp_path / "audit" / "audit.md").read_text(encoding="utf-8")
    assert str(tmp_path) not in text
    assert "(sample/sample.json)" in text
    assert "| labels | sample/labels.jsonl by ana" in text
    assert "At the pick (decision.json)" in text
    record = json.loads((tmp_path / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert record["sample"]["labels_files"] == ["sample/labels.jsonl"]
    assert record["at_pick"]["decision"] == "decision.json"
    assert all(log.startswith("week/logs/") for log in record["judge"]["logs"])
