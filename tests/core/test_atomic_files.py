"""Files are written whole or not at all: a failed write leaves the old file and no temporary;
a set of files is replaced together (its kills: test_atomic_files_kills.py)."""

import errno
import fcntl
import os
import traceback
from pathlib import Path
from typing import IO

import pytest

from farejudge.core.atomic_files import (
    OutputError,
    atomic_output,
    write_bytes_atomic,
    write_text_atomic,
    write_together,
)
from tests.support.full_disk import NO_SPACE, disk_full_on
from tests.support.kill_points import set_leftovers, writing


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


def _set(folder: Path, tag: str, *names: str) -> list[Path]:
    return write_together(folder, "a", {name: writing(f"{tag} {name}\n") for name in names})


def _read(folder: Path) -> dict[str, str]:
    return {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(folder.iterdir())
        if not p.name.startswith(".") and p.is_file()
    }


def test_a_set_is_links_at_its_paths_into_one_generation(tmp_path: Path) -> None:
    written = _set(tmp_path, "old", "a.json", "a.md")
    assert written == [tmp_path / "a.json", tmp_path / "a.md"]
    assert _read(tmp_path) == {"a.json": "old a.json\n", "a.md": "old a.md\n"}
    assert os.readlink(tmp_path / "a.md") == ".a.set/current/a.md"
    generation = os.readlink(tmp_path / ".a.set" / "current")
    assert sorted(os.listdir(tmp_path / ".a.set")) == sorted(["current", "lock", generation])
    _set(tmp_path, "new", "a.json", "a.md")
    assert _read(tmp_path) == {"a.json": "new a.json\n", "a.md": "new a.md\n"}
    # The previous generation is gone once the new one is committed.
    assert len(os.listdir(tmp_path / ".a.set")) == 3


def test_a_writer_that_fails_leaves_the_previous_set_and_nothing_else(tmp_path: Path) -> None:
    def failing(out: IO[str]) -> None:
        out.write("half")
        raise RuntimeError("the report could not be built")

    with pytest.raises(RuntimeError):
        write_together(tmp_path, "a", {"a.json": writing("x"), "a.md": failing})
    assert os.listdir(tmp_path) == []
    _set(tmp_path, "old", "a.json", "a.md")
    before = sorted(os.listdir(tmp_path)), sorted(os.listdir(tmp_path / ".a.set"))
    with pytest.raises(RuntimeError):
        write_together(tmp_path, "a", {"a.json": writing("x"), "a.md": failing})
    assert (sorted(os.listdir(tmp_path)), sorted(os.listdir(tmp_path / ".a.set"))) == before
    assert _read(tmp_path) == {"a.json": "old a.json\n", "a.md": "old a.md\n"}


def test_a_full_disk_names_the_file_and_leaves_the_previous_regular_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "a.md").write_text("written before sets\n", encoding="utf-8")
    disk_full_on(monkeypatch, "a.md")
    with pytest.raises(OutputError) as raised:
        _set(tmp_path, "new", "a.json", "a.md")
    assert str(raised.value) == f"cannot write {tmp_path / 'a.md'}: {NO_SPACE}"
    assert os.listdir(tmp_path) == ["a.md"] and not (tmp_path / "a.md").is_symlink()


def test_a_folder_at_a_paths_place_is_named_and_changes_nothing(tmp_path: Path) -> None:
    _set(tmp_path, "old", "a.json")
    (tmp_path / "a.md").mkdir()
    with pytest.raises(OutputError, match=f"cannot write {tmp_path / 'a.md'}: Is a directory"):
        _set(tmp_path, "new", "a.json", "a.md")
    assert _read(tmp_path) == {"a.json": "old a.json\n"}


def test_the_files_of_a_set_keep_their_modes(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("written before sets\n", encoding="utf-8")
    (tmp_path / "a.json").chmod(0o640)
    _set(tmp_path, "new", "a.json", "a.md")
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o640
    _set(tmp_path, "newer", "a.json", "a.md")
    assert (tmp_path / "a.json").stat().st_mode & 0o777 == 0o640
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "newer a.json\n"


@pytest.mark.subprocess
def test_writers_of_one_set_take_turns(tmp_path: Path) -> None:
    """Two processes writing the same set at once, each sweeping as it starts: every write
    completes, and the set ends whole, one writer's, with nothing left beside it."""
    names = ("a.json", "a.md", "a.html")
    children = []
    for tag in ("first", "second"):
        pid = os.fork()
        if pid == 0:
            try:
                for _ in range(40):
                    _set(tmp_path, tag, *names)
            except BaseException:
                traceback.print_exc()
                os._exit(1)
            os._exit(0)
        children.append(pid)
    assert [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children] == [0, 0]
    seen = _read(tmp_path)
    (tag,) = {text.split()[0] for text in seen.values()}
    assert seen == {name: f"{tag} {name}\n" for name in names}
    assert set_leftovers("a")(tmp_path) == []


def test_the_next_write_sweeps_a_dead_writers_temporary_not_a_live_ones(tmp_path: Path) -> None:
    target = tmp_path / "drafts.jsonl"
    live = tmp_path / ".drafts.jsonl.live01.tmp"
    dead = tmp_path / ".drafts.jsonl.dead01.tmp"
    dead.write_text("a killed writer's", encoding="utf-8")
    handle = os.open(live, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        # What a writer still at work holds (farejudge.core.atomic_files._held_temporary).
        fcntl.flock(handle, fcntl.LOCK_EX)
        write_text_atomic(target, "new\n")
        assert sorted(p.name for p in tmp_path.iterdir()) == [live.name, "drafts.jsonl"]
    finally:
        os.close(handle)
    write_text_atomic(target, "newer\n")
    assert [p.name for p in tmp_path.iterdir()] == ["drafts.jsonl"]
