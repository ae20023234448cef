"""judge-promote killed at each step of writing the gold set: its cases folder is the one before
the promotion or the one after, never some categories promoted, and the same command run again
completes it and leaves nothing behind."""

import json
import shutil
from pathlib import Path

import pytest

from farejudge.evals.dataset import DEFAULT_CASES
from farejudge.labelling.agreement import compare
from farejudge.labelling.agreement_render import render_pair_json
from farejudge.labelling.promote import AgreementRecord, decide, main, promote
from tests.support.kill_points import in_child
from tests.support.labels import alice, bob, sample_drafts

DRAFTS = sample_drafts()


def _view(cases: Path) -> dict[str, bytes]:
    """The gold set as a reader of the folder sees it: each file, by name."""
    return {p.name: p.read_bytes() for p in sorted(cases.iterdir())} if cases.exists() else {}


@pytest.mark.subprocess
def test_the_gold_set_is_the_old_one_or_the_new_at_every_kill_point(tmp_path: Path) -> None:
    gold = tmp_path / "gold"
    into = gold / "cases"
    shutil.copytree(DEFAULT_CASES, into)
    record = AgreementRecord.model_validate_json(
        json.dumps(render_pair_json(compare(DRAFTS, alice(), bob(), "alice", "bob"), 0.8))
    )
    result = decide(DRAFTS, record, {})
    # Two category files to write: one new, one the gold set has.
    result.cases = [
        c if i % 2 else c.model_copy(update={"category": "price"})
        for i, c in enumerate(result.cases)
    ]
    snapshot = tmp_path / "snapshot"
    shutil.copytree(into, snapshot)

    def restore() -> None:
        shutil.rmtree(gold)
        shutil.copytree(snapshot, into)

    before = _view(into)
    steps = in_child(lambda: promote(result, into), gold)
    after = _view(into)
    assert set(after) == set(before) | {"production.jsonl"}
    assert after["price.jsonl"] != before["price.jsonl"]
    mixed, leftovers = [], []
    for step in range(1, steps + 1):
        restore()
        assert in_child(lambda: promote(result, into), gold, step) == 0
        if _view(into) not in (before, after):
            mixed.append(step)
        # Run again as the person would: the gold set ends as one whole promotion leaves it.
        in_child(lambda: promote(result, into), gold)
        assert _view(into) == after, f"step {step}"
        leftovers += [
            f"step {step}: {name}"
            for name in sorted(p.name for p in gold.iterdir())
            if name != "cases"
        ]
    print(f"judge-promote: killed at each of {steps} steps")
    assert steps >= 10
    assert mixed == []
    assert leftovers == []


def test_the_command_again_after_a_kill_keeps_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Killed after the cases were swapped in, before the record was kept."""
    drafts = tmp_path / "drafts.jsonl"
    drafts.write_text("".join(d.model_dump_json() + "\n" for d in DRAFTS), encoding="utf-8")
    record = render_pair_json(compare(DRAFTS, alice(), bob(), "alice", "bob"), 0.8)
    (tmp_path / "agreement.json").write_text(json.dumps(record), encoding="utf-8")
    into = tmp_path / "gold" / "cases"
    shutil.copytree(DEFAULT_CASES, into)
    promote(decide(DRAFTS, AgreementRecord.model_validate_json(json.dumps(record)), {}), into)
    argv = ["--drafts", str(drafts), "--agreement", str(tmp_path / "agreement.json")]
    argv += ["--into", str(into), "--release", "2026-12"]
    assert main(argv) == 0
    assert (tmp_path / "gold" / "agreement" / "2026-12.json").exists()
    assert "already in the gold set as here" in capsys.readouterr().out
