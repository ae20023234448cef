"""A real filesystem with little or no room left: a small tmpfs, mounted for one test; or one
file's sync failing as a full disk fails it.

Mounting needs root (or CAP_SYS_ADMIN); where the mount is refused the test is skipped, saying
why.
"""

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

PAGE = 4096
# Pages of the whole filesystem: room for the eval set's records and a log's first header.
SIZE_PAGES = 16


@contextmanager
def full_folder(where: Path, free_bytes: int = 0) -> Iterator[Path]:
    """A folder on a tmpfs of its own with `free_bytes` (whole pages) left, until the block ends."""
    where.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        pytest.skip("cannot mount a small tmpfs here: no mount command")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE_PAGES * PAGE}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip() or 'not root'}")
    try:
        (where / "filler").write_bytes(b"\0" * (SIZE_PAGES * PAGE - free_bytes))
        yield where
    finally:
        subprocess.run(["umount", "--lazy", str(where)], check=True)


NO_SPACE = os.strerror(errno.ENOSPC)


def disk_full_on(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Syncing a file named `name` (wherever it is written: a set's new generation folder)
    fails as a full disk fails it."""
    real = os.fsync

    def fsync(fd: int) -> None:
        if Path(os.readlink(f"/proc/self/fd/{fd}")).name == name:
            raise OSError(errno.ENOSPC, NO_SPACE)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
