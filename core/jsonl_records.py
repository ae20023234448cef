"""JSON Lines record files → validated records, every problem one line naming file:line, id, field.

Case files, drafts, label files and assistant logs are all read here, one line at a time:
each line decoded as UTF-8 and parsed and validated by a pydantic model, and all problems in
all files gathered before any is reported. Nothing holds a file whole, so a log of any size
reads in the memory of its longest line.
"""

import hashlib
import io
import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from farejudge.core.text_input import bad_byte, shown

__all__ = [
    "MAX_LINE",
    "FirstSeen",
    "Problems",
    "Report",
    "iter_records",
    "json_values",
    "read_records",
    "record_problems",
    "shown",
    "text_lines",
]

M = TypeVar("M", bound=BaseModel)
Problems = Callable[[M], list[tuple[str, str]]]
"""Rules across a record's fields, as (field, problem) pairs."""
Report = Callable[[str], None]
"""Where each problem goes, one line each, as it is found."""

MAX_LINE = 32 * 1024 * 1024
"""Bytes in one line at most: a record is kilobytes, and a longer line (a whole JSON array on
one line, a binary file) would otherwise be read into memory whole."""
UTF8_SHOWN = 10
"""Lines that are not UTF-8 named one by one in a file; a binary file has thousands."""


def _raw_lines(f: IO[bytes]) -> Iterator[tuple[int, int, bytes | None]]:
    """Each line as (line number, byte offset of its start, its bytes without the line break),
    LF, CRLF and a lone CR each ending a line, as Python's universal newlines do: a blank line
    is an empty line, and a last line without a break is a line. A line over MAX_LINE bytes is
    None, and read past without being held."""
    number = offset = 0
    while chunk := f.readline(MAX_LINE):
        if len(chunk) == MAX_LINE and not chunk.endswith(b"\n"):
            number += 1
            yield number, offset, None
            offset += len(chunk)
            while (rest := f.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                offset += len(rest)
            offset += len(rest)
            continue
        ended = chunk.endswith(b"\n")
        body = chunk[:-2] if chunk.endswith(b"\r\n") else chunk[:-1] if ended else chunk
        pieces = body.split(b"\r")
        if not ended and body.endswith(b"\r"):
            pieces.pop()  # a lone CR ends the file's last line; no line follows it
        start = offset
        for piece in pieces:
            number += 1
            yield number, start, piece
            start += len(piece) + 1
        offset += len(chunk)


def text_lines(
    path: Path, noun: str, report: Report, data: bytes | None = None
) -> Iterator[tuple[int, str | None]]:
    """Each line of one file as (its number, its text). A line that is not UTF-8 or is too
    long is reported as one line naming the `noun` ("case", "record") and comes as None; a
    file that cannot be opened is reported and has no lines. `data` is the file's bytes when
    the caller has read them already (the file is then not opened)."""
    name = shown(path)
    not_utf8 = 0
    try:
        f = path.open("rb") if data is None else io.BytesIO(data)
    except OSError as err:
        report(f"{name}: {err.strerror or err}")
        return
    with f:
        for number, offset, data in _raw_lines(f):
            if data is None:
                report(f"{name}:{number}: {noun} ?: longer than {MAX_LINE} bytes; not read")
                yield number, None
                continue
            try:
                yield number, data.decode("utf-8")
            except UnicodeDecodeError as err:
                not_utf8 += 1
                if not_utf8 <= UTF8_SHOWN:
                    report(f"{name}:{number}: {noun} ?: {bad_byte(data, err, offset)}")
                yield number, None
    if not_utf8 > UTF8_SHOWN:
        report(f"{name}: {noun} ?: {not_utf8 - UTF8_SHOWN} more lines are not UTF-8")


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(record)"


def json_values(
    path: Path, noun: str, report: Report, data: bytes | None = None
) -> Iterator[tuple[int, str, str, Any]]:
    """Each non-blank line of one file as (its number; where it is, "file:line"; its text; its
    JSON value).

    A line that is not UTF-8 or not JSON is reported as one line naming the `noun` ("case",
    "record") and skipped. `data`: as for `text_lines`.
    """
    name = shown(path)
    for lineno, line in text_lines(path, noun, report, data):
        if line is None or not line.strip():
            continue
        where = f"{name}:{lineno}"
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            report(f"{where}: {noun} ?: not valid JSON ({err.msg}, column {err.colno})")
            continue
        yield lineno, where, line, value


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


class FirstSeen:
    """Strings seen so far, each with the number it was first seen with, in 24 bytes a string.

    A string is held as 16 bytes of its BLAKE2 hash, not as itself, in sorted arrays with a
    small dict of the newest in front: a million ids take 24 MB where a set of them takes 100.
    Two different strings share a hash with odds of about n² / 2¹²⁹: one in 10²¹ for a billion
    strings, so a string taken for one seen before (a record skipped as a duplicate) is not a
    risk at any size a file reaches.
    """

    _MERGE_AT = 1 << 16
    _KEY = np.dtype("V16")
    """Raw bytes, compared as bytes: sorted and searched in the order of their bytes."""

    def __init__(self) -> None:
        self._keys = np.empty(0, dtype=self._KEY)
        self._values = np.empty(0, dtype=np.uint64)
        self._recent: dict[bytes, int] = {}

    def first(self, text: str, value: int) -> int | None:
        """The value `text` was first seen with; None, and `value` kept for it, if this is the
        first time."""
        key = hashlib.blake2b(text.encode(), digest_size=self._KEY.itemsize).digest()
        if (recent := self._recent.get(key)) is not None:
            return recent
        at = int(np.searchsorted(self._keys, np.void(key)))
        if at < len(self._keys) and bytes(self._keys[at]) == key:
            return int(self._values[at])
        self._recent[key] = value
        if len(self._recent) >= self._MERGE_AT:
            self._merge()
        return None

    def _merge(self) -> None:
        count = len(self._recent)
        keys = np.concatenate([self._keys, np.array(list(self._recent), dtype=self._KEY)])
        values = np.concatenate(
            [self._values, np.fromiter(self._recent.values(), dtype=np.uint64, count=count)]
        )
        order = np.argsort(keys, kind="stable")
        self._keys, self._values = keys[order], values[order]
        self._recent.clear()


def iter_records(
    files: Iterable[Path],
    model: type[M],
    kind: str,
    report: Report,
    id_field: str = "id",
    check: Problems[M] | None = None,
    unique: bool = True,
    seen: FirstSeen | None = None,
) -> Iterator[tuple[str, M]]:
    """Every valid record with where it is ("file:line"), in file and line order, one at a
    time; every problem goes to `report` as it is found. A file with no records is a problem:
    it is a mistake, not data. `kind` names the records in that message ("cases", "labels").
    With `unique`, a record whose id an earlier one has is a problem, and only the first comes;
    the ids go into `seen` when given, for a caller that goes on checking ids after the files
    (its values are these files' positions).
    """
    files = list(files)
    first = FirstSeen() if seen is None else seen
    for index, path in enumerate(files):
        found = 0

        def counted(problem: str) -> None:
            nonlocal found
            found += 1
            report(problem)

        for lineno, where, line, value in json_values(path, "case", counted):
            found += 1
            parsed, problems = record_problems(value, line, where, model, id_field, check)
            for problem in problems:
                report(problem)
            if parsed is None:
                continue
            # Kept despite cross-field problems: a later duplicate of it is still named.
            key = str(getattr(parsed, id_field))
            if unique and (earlier := first.first(key, index << 40 | lineno)) is not None:
                at = f"{shown(files[earlier >> 40])}:{earlier & (1 << 40) - 1}"
                report(f"{where}: case {key!r}: field {id_field!r}: duplicate of {at}")
                continue
            yield where, parsed
        if not found:
            report(f"{shown(path)}: no {kind} in this file")


def read_records(
    files: list[Path],
    model: type[M],
    kind: str,
    id_field: str = "id",
    check: Problems[M] | None = None,
    unique: bool = True,
) -> tuple[list[tuple[str, M]], list[str]]:
    """`iter_records` whole: every valid record with where it is, and every problem."""
    problems: list[str] = []
    good = list(iter_records(files, model, kind, problems.append, id_field, check, unique))
    return good, problems
