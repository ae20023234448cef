"""A drafts file: the cases intake brought in, waiting for labels, one JSON Lines record each."""

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import read_records
from farejudge.labelling.records import Draft, content_hash


def _hash_problems(draft: Draft) -> list[tuple[str, str]]:
    # An edited draft must not keep labels given to its earlier content.
    if draft.content_sha256 != content_hash(draft):
        return [("content_sha256", "does not match the draft's content (was it edited?)")]
    return []


def read_drafts(path: Path) -> list[Draft]:
    records, problems = read_records([path], Draft, "drafts", check=_hash_problems)
    if problems:
        raise InputError(problems)
    return [draft for _, draft in records]


def write_atomic(path: Path, lines: Iterable[str]) -> None:
    """All the lines or none: written to a temporary file beside `path`, then renamed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(line + "\n" for line in lines)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_drafts(path: Path, drafts: Iterable[Draft]) -> None:
    write_atomic(path, (d.model_dump_json() for d in drafts))
