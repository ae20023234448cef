"""Files written whole or not at all: a temporary file in the same folder, then a rename.

A reader (or the next run) sees the old file or the whole new one, never a torn one: a full
disk, a kill or a crash mid-write leaves the old file as it was and no temporary behind. The
rename is atomic only within one filesystem, hence the same folder.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["atomic_binary_output", "atomic_output", "write_bytes_atomic", "write_text_atomic"]


@contextmanager
def atomic_output(path: Path) -> Iterator[IO[str]]:
    """A UTF-8 text file to write `path` through; it replaces `path` only if the block ends
    without error. The data reaches the disk before the rename, so a power cut cannot leave the
    new name pointing at empty blocks."""
    with _atomic(path, binary=False) as out:
        yield out  # type: ignore[misc]


@contextmanager
def atomic_binary_output(path: Path) -> Iterator[IO[bytes]]:
    """`atomic_output` for bytes."""
    with _atomic(path, binary=True) as out:
        yield out  # type: ignore[misc]


@contextmanager
def _atomic(path: Path, *, binary: bool) -> Iterator[IO[str] | IO[bytes]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        # mkstemp makes the file private (0600); the file keeps the mode it had, and a new one
        # gets what open() would give it.
        os.fchmod(handle, _mode_for(path))
        out: IO[str] | IO[bytes] = (
            os.fdopen(handle, "wb")
            if binary
            else os.fdopen(handle, "w", encoding="utf-8", newline="")
        )
        with out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    """`path.write_text(text)` (UTF-8), whole or not at all."""
    with atomic_output(path) as out:
        out.write(text)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """`path.write_bytes(data)`, whole or not at all."""
    with atomic_binary_output(path) as out:
        out.write(data)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
