"""Writing a drafts file (and the other JSON Lines files of labelling) whole or not at all.

The drafts file's records and its reader are `farejudge.core.drafts`: the production judge
reads the same file.
"""

from collections.abc import Iterable
from pathlib import Path

from farejudge.core.atomic_files import atomic_output


def write_atomic(path: Path, lines: Iterable[str]) -> None:
    """All the lines or none (core.atomic_files): each line followed by a newline."""
    with atomic_output(path) as out:
        for line in lines:
            out.write(line + "\n")
