"""JSON Lines record files → validated records, every problem one line naming file:line, id, field.

Case files, drafts and label files are all read here: through the `datasets` text reader,
each line parsed and validated by a pydantic model, and all problems in all files gathered
before any is reported.
"""

import glob
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from datasets import (
    are_progress_bars_disabled,
    disable_progress_bars,
    enable_progress_bars,
    load_dataset,
)
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)
Problems = Callable[[M], list[tuple[str, str]]]
"""Rules across a record's fields, as (field, problem) pairs."""


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@contextmanager
def _progress_bars_off() -> Iterator[None]:
    """No `datasets` progress bar on the user's terminal while the files are read."""
    was_disabled = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        yield
    finally:
        if not was_disabled:
            enable_progress_bars()


def read_lines(files: list[Path]) -> list[list[str]]:
    """Each file's lines, read by the `datasets` text reader: line n of a file is item n - 1.

    The reader opens a file with universal newlines, so LF, CRLF and CR each end a line; a
    blank line is an empty item, and a last line without a newline is a line. Each file is a
    split of its own, so every line stays with its file. Streaming reads the files where they
    are: no cache that could go stale, and an empty file is an empty split, not an error.
    """
    # `data_files` are glob patterns: a folder named "[draft]" would otherwise match nothing.
    splits = {f"file{i}": glob.escape(str(path)) for i, path in enumerate(files)}
    with _progress_bars_off():
        read = load_dataset("text", data_files=splits, streaming=True)
        return [[row["text"] for row in read[split]] for split in splits]


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(record)"


def json_values(
    path: Path, lines: list[str], noun: str, problems: list[str]
) -> Iterator[tuple[str, str, Any]]:
    """Each non-blank line of one file as (where it is, "file:line"; its text; its JSON value).

    A line that is not JSON is added to `problems` as one line naming the `noun` ("case",
    "record") and skipped.
    """
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{shown(path)}:{lineno}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(f"{where}: {noun} ?: not valid JSON ({err.msg}, column {err.colno})")
            continue
        yield where, line, value


def record_problems(
    record: Any,
    text: str,
    where: str,
    model: type[M],
    id_field: str,
    check: Problems[M] | None = None,
) -> tuple[M | None, list[str]]:
    """One line as a `model`, or every problem with it, one line each: `record` is the line's
    parsed JSON value, `text` the line itself."""
    if not isinstance(record, dict):
        return None, [f"{where}: case ?: record is a JSON {type(record).__name__}, not an object"]
    raw_id = record.get(id_field)
    who = f"case {raw_id!r}" if isinstance(raw_id, str) and raw_id else "case ?"
    try:
        # JSON mode: strict models still take dates and times as ISO strings.
        parsed = model.model_validate_json(text)
    except ValidationError as err:
        return None, [
            f"{where}: {who}: field {_field(e['loc'])!r}: {e['msg']}" for e in err.errors()
        ]
    found = check(parsed) if check else []
    return parsed, [f"{where}: {who}: field {f!r}: {msg}" for f, msg in found]


def read_records(
    files: list[Path],
    model: type[M],
    kind: str,
    id_field: str = "id",
    check: Problems[M] | None = None,
    unique: bool = True,
) -> tuple[list[tuple[str, M]], list[str]]:
    """Every valid record with where it is ("file:line"), in file and line order; and every
    problem, one line each. A file with no records is a problem: it is a mistake, not data.
    `kind` names the records in that message ("cases", "labels"). With `unique`, a record
    whose id an earlier one has is a problem, and only the first is returned."""
    problems: list[str] = []
    good: list[tuple[str, M]] = []
    first: dict[str, str] = {}
    for path, file_lines in zip(files, read_lines(files), strict=True):
        if not any(line.strip() for line in file_lines):
            problems.append(f"{shown(path)}: no {kind} in this file")
            continue
        for where, line, value in json_values(path, file_lines, "case", problems):
            parsed, found = record_problems(value, line, where, model, id_field, check)
            problems.extend(found)
            if parsed is None:
                continue
            # Kept despite cross-field problems: a later duplicate of it is still named.
            key = str(getattr(parsed, id_field))
            if unique and key in first:
                problems.append(
                    f"{where}: case {key!r}: field {id_field!r}: duplicate of {first[key]}"
                )
                continue
            first.setdefault(key, where)
            good.append((where, parsed))
    return good, problems
