"""What judge-compare writes on a full disk: nothing torn, the previous files as they were,
and one line naming the file (issue 26: `--out` on a full disk left a 0-byte report.md).

The logs: three scripted judges of v3 over six synthetic cases, all three wrong on two of
them, so that the panel has suspects to export.
"""

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK, run
from farejudge.comparison.panel.suspects_export import KEY, OTHER_GOLD
from farejudge.testing.synthetic_cases import write_cases
from tests.support.full_disk import NO_SPACE, disk_full_on
from tests.support.scripted_cases import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
SUSPECTS = ["syn-00001", "syn-00003"]
REPORT = ["cases.jsonl", "decision.json", "report.html", "report.md"]


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("writes")
    cases = root / "cases.jsonl"
    write_cases(cases, 6)
    for model in MODELS:
        run_version("v3", dict.fromkeys(SUSPECTS, "wrong"), cases, root / "logs", model=model)
    return root / "logs"


def compare(logs: Path, out: Path, *options: str) -> int:
    return run([str(logs), "--out", str(out), "--quiet", "--resamples", "50", *options])


def previous_report(out: Path) -> dict[str, str]:
    out.mkdir(parents=True)
    for name in REPORT:
        (out / name).write_text(f"the previous {name}\n", encoding="utf-8")
    return {name: (out / name).read_text(encoding="utf-8") for name in REPORT}


@pytest.mark.slow
@pytest.mark.parametrize("name", REPORT)
def test_a_full_disk_leaves_the_previous_report_as_it_was_and_names_the_file(
    logs: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
) -> None:
    out = tmp_path / "report"
    before = previous_report(out)
    disk_full_on(monkeypatch, name)

    assert compare(logs, out) == EXIT_INPUT

    assert capsys.readouterr().err == (
        f"judge-compare: error: cannot write {out / name}: {NO_SPACE}\n"
    )
    # Nothing left behind (no set's folder, no temporary), and none of the four replaced:
    # they go together.
    assert sorted(os.listdir(out)) == REPORT
    assert {n: (out / n).read_text(encoding="utf-8") for n in REPORT} == before


@pytest.mark.slow
def test_a_full_disk_leaves_no_empty_report(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    disk_full_on(monkeypatch, "report.md")

    assert compare(logs, out) == EXIT_INPUT

    assert capsys.readouterr().err.endswith(f"cannot write {out / 'report.md'}: {NO_SPACE}\n")
    assert os.listdir(out) == []


@pytest.mark.slow
def test_a_full_disk_during_the_suspects_export_writes_none_of_it(
    logs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    suspects = tmp_path / "suspects"
    options = ["--suspects-out", str(suspects)]
    with monkeypatch.context() as patched:
        disk_full_on(patched, KEY)
        assert compare(logs, tmp_path / "report", *options) == EXIT_INPUT
    assert capsys.readouterr().err == (
        f"judge-compare: error: cannot write {suspects / KEY}: {NO_SPACE}\n"
    )
    # Left empty, the folder is taken again: a half-written export would be refused.
    assert os.listdir(suspects) == []

    assert compare(logs, tmp_path / "report", *options) == EXIT_OK
    assert KEY in os.listdir(suspects) and OTHER_GOLD in os.listdir(suspects)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 64 KiB filesystem (tmpfs), mounted for the test; skipped where mounting is not
    permitted (not root, or a container without the capability)."""
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", "--lazy", str(disk)], check=True)


def fill(disk: Path) -> None:
    with (disk / "filler").open("wb", buffering=0) as out:
        while True:
            try:
                out.write(b"\0" * 4096)
            except OSError as err:
                assert err.errno == errno.ENOSPC
                return


@pytest.mark.subprocess
def test_a_real_full_disk_leaves_no_file_and_a_small_one_the_previous_report(
    logs: Path, tiny_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Room for the previous report and the new Markdown, not for the page with its plots.
    small = tiny_disk / "small"
    before = previous_report(small)
    assert compare(logs, small) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err == f"judge-compare: error: cannot write {small / 'report.html'}: {NO_SPACE}\n"
    assert sorted(os.listdir(small)) == REPORT
    assert {n: (small / n).read_text(encoding="utf-8") for n in REPORT} == before

    full = tiny_disk / "full"
    full.mkdir()
    fill(tiny_disk)
    assert compare(logs, full) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err == f"judge-compare: error: cannot write {full / 'report.md'}: {NO_SPACE}\n"
    assert os.listdir(full) == []
