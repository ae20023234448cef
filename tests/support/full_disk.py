"""A real filesystem with little or no room left: a small tmpfs, mounted for one test.

Mounting needs root (or CAP_SYS_ADMIN); where the mount is refused the test is skipped, saying
why.
"""

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
