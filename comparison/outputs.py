"""The files judge-compare writes, a set at a time: each one whole, and none unless all.

A report is several files read together (report.md, report.html, cases.jsonl; a suspects
export's files). Each goes through `farejudge.core.atomic_files`, so no reader ever sees a
torn or empty one; and every file of a set is written, flushed and synced before the first
is renamed into place, so a full disk, which fails a write, a flush or a sync, leaves the
whole previous set as it was rather than a new report beside an old listing.
"""

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO

from farejudge.core.atomic_files import atomic_output

Writer = Callable[[IO[str]], object]
"""Writes one file's text into the stream it is given."""


class OutputError(Exception):
    """A file could not be written; the message names it, in one line."""


def write_together(files: Mapping[Path, Writer]) -> None:
    """Write each file with its writer; replace them all only if every one was written."""
    with ExitStack() as stack:
        for path, write in files.items():
            out = stack.enter_context(_named(path))
            write(out)
            out.flush()
            # Synced here, not only as each is renamed: a disk that fails only at the sync
            # (delayed allocation, a network file system) fails before the first rename.
            os.fsync(out.fileno())
        # Leaving the stack renames each file, the last one first.


@contextmanager
def _named(path: Path) -> Iterator[IO[str]]:
    # Entered just before its file is written: an error writing it reaches this manager
    # first, the innermost, and is named after its file; the managers of the files before
    # it see that OutputError, and only discard their temporary files.
    try:
        with atomic_output(path) as out:
            yield out
    except OSError as err:
        raise OutputError(f"cannot write {path}: {err.strerror or err}") from err
