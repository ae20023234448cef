"""judge-agreement killed at each step of writing --out (issue 62): agreement.json (what
judge-promote reads) and agreement.md (the page explaining it) are the old pair or the new one,
never a mix, and the next run sweeps what a killed one left; a full disk is one line, exit 2."""

import json
from pathlib import Path

import pytest

from farejudge.core.atomic_files import write_together
from farejudge.labelling import agreement_report
from farejudge.labelling.label_file import append_label
from tests.support.full_disk import NO_SPACE, disk_full_on
from tests.support.kill_points import Drills, drilled, held
from tests.support.labels import DRAFTS, alice, bob, write_drafts


def _labelled(tmp_path: Path, bob_labels: int) -> list[str]:
    """The arguments comparing alice's labels with bob's first `bob_labels`."""
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, DRAFTS)
    for name, labels in (("alice", alice()), ("bob", bob()[:bob_labels])):
        (tmp_path / f"{name}.jsonl").unlink(missing_ok=True)
        for one in labels:
            append_label(tmp_path / f"{name}.jsonl", one)
    return [str(tmp_path / "alice.jsonl"), str(tmp_path / "bob.jsonl"), "--drafts", str(drafts)]


@pytest.mark.subprocess
def test_the_agreement_is_the_old_pair_or_the_new_at_every_kill_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "agreement"
    assert agreement_report.main([*_labelled(tmp_path, 6), "--out", str(out)]) in (0, 1)
    drills: Drills = {}
    monkeypatch.setattr(agreement_report, "write_together", drilled(write_together, drills))
    assert agreement_report.main([*_labelled(tmp_path, 10), "--out", str(out)]) == 0

    (written,) = drills["agreement"]
    held(written, "judge-agreement")
    pairs = [len(json.loads(v["agreement.json"])["cases"]) for v in (written.before, written.after)]
    assert pairs == [6, 10]


def test_a_full_disk_is_one_line_and_leaves_the_previous_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "agreement"
    args = [*_labelled(tmp_path, 10), "--out", str(out)]
    assert agreement_report.main(args) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")}
    disk_full_on(monkeypatch, "agreement.json")
    capsys.readouterr()
    assert agreement_report.main(args) == 2
    assert capsys.readouterr().err == (
        f"judge-agreement: error: cannot write {out / 'agreement.json'}: {NO_SPACE}\n"
    )
    assert {p.name: p.read_bytes() for p in out.iterdir() if not p.name.startswith(".")} == before
