"""Why a log file cannot be compared, told from the file itself once reading it failed.

Reading a log raises whatever its reader met first (`File is not a zip file`, a JSON error at
some character), which says little about the file. Only then, and only for that file, this
looks at it: its size, its first and last bytes, its zip directory, and for a small .json
its whole text. Nothing here runs for a log that reads.
"""

import json
import zipfile
import zlib
from dataclasses import dataclass
from typing import IO, Any

import zstandard
from fsspec import AbstractFileSystem
from fsspec.core import url_to_fs

from farejudge.shared.logs.headers import HEADER_MEMBERS

READ_ERRORS = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, zstandard.ZstdError)
"""What reading a log that is not whole, or not a log, raises: the file system's errors, the
zip reader's, the decompressors' and the JSON and model validation errors (ValueError)."""

_ZIP_START = b"PK\x03\x04"
_WHOLE_JSON_LIMIT = 64 << 20
"""Bytes of a .json that is not a log read whole to say what it is; a larger one that Inspect
cannot read is called damaged, unread."""
_TAIL = 64
_CUT_SHORT = "cut short, as by a full disk or an interrupted copy"


@dataclass(frozen=True)
class Unusable:
    """Why one log file is left out of the comparison."""

    reason: str
    """One of: empty, truncated, not a log, another task, damaged, unreadable."""
    detail: str
    settled: bool = False
    """The file was read whole and is not a log of the compared task: it cannot hold a run
    the comparison lacks (another task's log, a whole JSON document or zip archive with no
    Inspect log in it). Any other left-out file may."""

    def __str__(self) -> str:
        return f"{self.reason} ({self.detail})"


def another_task(task: str) -> Unusable:
    return Unusable("another task", f"its task is {task}", settled=True)


def diagnose(location: str, err: BaseException, task: str, reading: str = "") -> Unusable:
    """Why the log at `location` could not be read (`err`, raised reading `reading`: its
    header when empty); `task` is the compared task's name."""
    fs, path = url_to_fs(location)
    try:
        size = int(fs.size(path))
        if size == 0:
            return Unusable("empty", "0 bytes")
        if isinstance(err, OSError):
            return Unusable("unreadable", err.strerror or str(err))
        if location.endswith(".eval"):
            return _eval(fs, path, size, _what(err, reading))
        return _json(fs, path, size, _what(err, reading), task)
    except OSError as again:
        return Unusable("unreadable", again.strerror or str(again))


def _what(err: BaseException, reading: str) -> str:
    return f"{reading}: {err}" if reading else str(err)


def _eval(fs: AbstractFileSystem, path: str, size: int, err: str) -> Unusable:
    with fs.open(path, "rb") as raw:
        if raw.read(len(_ZIP_START)) != _ZIP_START:
            return Unusable("not a log", "not a zip archive, as every .eval log is")
        raw.seek(0)
        try:
            with zipfile.ZipFile(raw) as archive:
                names = set(archive.namelist())
        except zipfile.BadZipFile:
            return Unusable(
                "truncated", f"{size:,} bytes, no zip directory at its end: {_CUT_SHORT}"
            )
    if not names & set(HEADER_MEMBERS):
        return Unusable(
            "not a log", "a zip archive with no Inspect header in it (header.json)", settled=True
        )
    return Unusable("damaged", err)


def _json(fs: AbstractFileSystem, path: str, size: int, err: str, task: str) -> Unusable:
    with fs.open(path, "rb") as raw:
        first = raw.read(_TAIL).lstrip()[:1]
        raw.seek(max(0, size - _TAIL))
        last = raw.read().rstrip()[-1:]
        if first == b"{" and last != b"}":
            return Unusable(
                "truncated", f"{size:,} bytes, its JSON object not closed: {_CUT_SHORT}"
            )
        if size > _WHOLE_JSON_LIMIT:
            return Unusable("damaged", err)
        raw.seek(0)
        return _json_document(raw, err, task)


def _json_document(raw: IO[bytes], err: str, task: str) -> Unusable:
    try:
        document: Any = json.load(raw)
    except ValueError as invalid:
        return Unusable("not a log", f"not valid JSON: {invalid}")
    spec = document.get("eval") if isinstance(document, dict) else None
    if not isinstance(spec, dict):
        return Unusable("not a log", "a JSON document with no Inspect eval spec", settled=True)
    found = str(spec.get("task", ""))
    if found and found.split("/")[-1] != task:
        return another_task(found)
    return Unusable("damaged", err)
