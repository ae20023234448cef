"""An annotator's labels file: JSON Lines, appended to one label at a time, never edited.

Each submit is one line, written by one append and fsynced before the browser hears "saved",
so a kill or a power cut can tear only the last line, and only one the page was never told
is saved. A save that fails part-way (a full disk) is cut back off, so the file still ends
on a whole line. Labelling a case again appends a new line; the latest line for a case is
its label, and the earlier ones stay as the history.

A torn last line is moved to a side file beside the labels file when `judge-label` starts
(`recover_torn_tail`); every other reader leaves it out and says so. A bad line anywhere
else is corruption, not a torn save, and stays an error that names it.
"""

import contextlib
import datetime
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from farejudge.core.atomic_files import sync_folder, write_bytes_atomic
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import json_values, record_problems
from farejudge.core.text_input import line_of, shown
from farejudge.labelling.records import Label

LINE_BREAKS = (b"\n", b"\r")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def append_label(path: Path, label: Label) -> None:
    """One line added to the end of the file and on disk when this returns."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (label.model_dump_json() + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        try:
            _write_all(fd, data)
            os.fsync(fd)
        except OSError:
            # Cut the part-written line back off: the next save must not extend a torn one.
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)
    if size == 0:
        sync_folder(path.parent)


@dataclass(frozen=True)
class TornTail:
    """The last line of a labels file cut off by an interrupted save."""

    line: int
    offset: int
    """Where it starts, in bytes from the start of the file."""
    data: bytes
    """Its bytes, and any line break after it."""


def _parses(line: bytes) -> tuple[bool, bool]:
    """Whether `line` is a JSON value; if not, whether it is one cut short (truncated)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as err:
        return False, err.reason == "unexpected end of data"
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return False, err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string")
    return True, False


def torn_tail(data: bytes) -> TornTail | None:
    """The torn last line of a labels file's bytes, if there is one: not JSON and with no line
    break after it, or JSON cut short."""
    body = data.rstrip(b"\r\n")
    start = max(body.rfind(b"\n"), body.rfind(b"\r")) + 1
    last = body[start:]
    if not last.strip():
        return None
    complete, truncated = _parses(last)
    ended = len(body) < len(data)
    if complete or (ended and not truncated):
        return None
    return TornTail(line=line_of(data, start), offset=start, data=data[start:])


def _side_file(path: Path) -> Path:
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%dT%H%M%SZ")
    side = path.with_name(f"{path.name}.torn-{stamp}")
    n = 1
    while side.exists():
        n += 1
        side = path.with_name(f"{path.name}.torn-{stamp}-{n}")
    return side


def recover_torn_tail(path: Path) -> str | None:
    """Move a torn last line to a side file beside `path` and rewrite `path` without it; the
    one line that says so, or None when the file ends on a whole line.

    Only the one process that appends to the file may call this, before it appends: a torn
    tail seen while another process is saving is that save, still being written.
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as err:
        raise InputError([f"{shown(path)}: {err.strerror or err}"]) from None
    tail = torn_tail(data)
    if tail is None:
        if data and not data.endswith(LINE_BREAKS):
            # A whole last line without its line break: the next save must start a new line.
            write_bytes_atomic(path, data + b"\n")
        return None
    side = _side_file(path)
    # The side file first: a crash between the two writes leaves the tail in both, not lost.
    write_bytes_atomic(side, tail.data)
    write_bytes_atomic(path, data[: tail.offset])
    return (
        f"{shown(path)}:{tail.line}: torn last line (an interrupted save, {len(tail.data)} "
        f"bytes) moved to {shown(side)}"
    )


def read_labels(path: Path) -> list[Label]:
    """Every label in the file, in the order given; a missing or empty file is no labels yet.

    A torn last line is left out, with one line on stderr: it is a save that never finished
    (or one finishing now), so no label the page was told is saved.
    """
    return [label for _, label in read_numbered_labels(path)]


def read_numbered_labels(path: Path) -> list[tuple[int, Label]]:
    """`read_labels`, each label with its line number."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as err:
        raise InputError([f"{shown(path)}: {err.strerror or err}"]) from None
    tail = torn_tail(data)
    problems: list[str] = []
    labels = []
    whole = data if tail is None else data[: tail.offset]
    for number, where, line, value in json_values(path, "case", problems.append, whole):
        label, found = record_problems(value, line, where, Label, "case_id")
        problems += found
        if label is not None:
            labels.append((number, label))
    if problems:
        raise InputError(problems)
    if tail is not None:
        print(
            f"{shown(path)}:{tail.line}: torn last line (an interrupted save, "
            f"{len(tail.data)} bytes) left out; judge-label moves it to a side file when it "
            "starts",
            file=sys.stderr,
        )
    return labels


def latest_labels(labels: list[Label]) -> dict[str, Label]:
    """Each case's current label: the last one given for it."""
    return {label.case_id: label for label in labels}
