"""Files are written whole or not at all: a failed write leaves the old file and no temporary."""

import errno
import os
from pathlib import Path

import pytest

from farejudge.core.atomic_files import atomic_output, write_bytes_atomic, write_text_atomic


def test_a_write_replaces_the_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.md"
    write_text_atomic(target, "é\n" * 3)
    assert target.read_bytes() == "é\n".encode() * 3
    write_bytes_atomic(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in target.parent.iterdir()) == ["report.md"]


def test_an_error_in_the_block_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "cases.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_output(target) as out:
        out.write("half of the new")
        raise RuntimeError("killed mid-write")
    assert target.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cases.jsonl"]


def test_a_full_disk_leaves_no_empty_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "report.md"
    with pytest.raises(OSError, match="No space left"):
        write_text_atomic(target, "x" * 10_000)
    assert list(tmp_path.iterdir()) == []


def test_a_file_keeps_its_mode_and_a_new_one_gets_the_usual(tmp_path: Path) -> None:
    kept = tmp_path / "labels.jsonl"
    kept.write_text("old\n", encoding="utf-8")
    kept.chmod(0o640)
    write_text_atomic(kept, "new\n")
    assert kept.stat().st_mode & 0o777 == 0o640
    umask = os.umask(0o022)
    try:
        fresh = tmp_path / "report.md"
        write_text_atomic(fresh, "x")
    finally:
        os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o644
