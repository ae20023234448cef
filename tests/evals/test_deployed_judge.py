"""What the tasks read of decision.json: what judge-compare writes, the keys they do not read
left aside, and one line for what the production task cannot run."""

import json
from pathlib import Path

import pytest

from farejudge.core.decision_file import CandidateName
from farejudge.core.errors import InputError
from farejudge.evals.deployed_judge import read_preferred
from tests.support.audit_runs import write_decision


def test_a_task_reads_the_written_decision_and_leaves_keys_it_does_not_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "decision.json"
    write_decision(path)
    written = json.loads(path.read_text(encoding="utf-8"))
    found = read_preferred(path, "-T decision=d")
    assert found.prefer == CandidateName.model_validate(written["prefer"])
    assert found.judge() == (written["prefer"]["version"], written["prefer"]["model"], None)
    newer = {**written, "prefer": {**written["prefer"], "added": 1}, "more": True}
    path.write_text(json.dumps(newer), encoding="utf-8")
    assert read_preferred(path, "-T decision=d").prefer == found.prefer


@pytest.mark.parametrize(
    ("stages", "words"),
    [
        ([("a", 0.9), ("b", 0.8)], "prefers the cascade"),
        ([("a", None)], "the judge decides nothing alone"),
    ],
)
def test_the_production_task_refuses_what_it_cannot_run(
    tmp_path: Path, stages: list[tuple[str, float | None]], words: str
) -> None:
    path = tmp_path / "decision.json"
    prefer = {
        "version": "v3",
        "model": " → ".join([m for m, _ in stages] + ["a person"]),
        "stages": [{"version": "v3", "model": m, "threshold": t} for m, t in stages],
    }
    path.write_text(json.dumps({"prefer": prefer}), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_preferred(path, "d").judge()
    (line,) = raised.value.problems
    assert line.startswith("d: ") and words in line
