"""What a run killed before its end leaves on disk holding a credential, redacted by the next.

A run redacts its own log as it ends (`log_redaction`). One killed first (SIGKILL, a lost
machine) never gets there, and leaves the key a server quoted back in two places:

- its log: an .eval log is written as it goes, the finished samples each a zip member, every
  model event with the provider's error text; a .json log is rewritten whole as it goes;
- Inspect's sample buffer, a SQLite database per log and process under Inspect's data folder
  (`samplebuffer/<hash of the log folder>/<log file>.<pid>.db`, and its `-wal` journal),
  every event of the samples in flight as JSON text. Inspect deletes one whose process is
  gone after three days, or when `inspect eval-retry` recovers its samples from it.

The next run that knows the credential (it is in its environment, or given to its model)
redacts both in place, as each part was written, so `inspect eval-retry` still resumes the
killed run and recovers what its buffer holds: a buffer at the run's start, the logs at its
end, when their folders are known. A log or buffer whose writer is alive is left alone: an
unfinished log whose buffer names a running process is being written.
"""

import contextlib
import json
import os
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from farejudge.core.credentials import Redactor
from farejudge.core.inspect_internals import inspect_data_dir, sample_buffer_dbs

_LOG_SUFFIXES = (".eval", ".json")
_HEADER = "header.json"
_JSON_HEAD = 4096
"""Bytes at the start of a .json log that hold its status: Inspect writes it second."""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def _buffer_pid(database: Path) -> int | None:
    """The process a buffer database belongs to: its name is `<log file>.<pid>.db`."""
    pid = database.name.removesuffix(".db").rsplit(".", 1)[-1]
    return int(pid) if pid.isdigit() else None


def _holds(paths: Iterable[Path], redact: Redactor) -> bool:
    return any(path.is_file() and redact.found_in(path.read_bytes()) for path in paths)


def _journal(database: Path) -> Path:
    return database.with_name(f"{database.name}-wal")


def _redact_database(database: Path, redact: Redactor) -> None:
    """Every text column of every table, redacted in place; then the journal folded in and
    emptied and the file rebuilt, so no page keeps the old text (`secure_delete` zeroes what
    an update frees)."""
    connection = sqlite3.connect(database)
    try:
        connection.execute("PRAGMA secure_delete = ON")
        tables = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        for (table,) in tables.fetchall():
            columns = connection.execute(f'PRAGMA table_info("{table}")').fetchall()
            for column in (c[1] for c in columns if str(c[2]).upper() == "TEXT"):
                for written, name in redact.written.items():
                    connection.execute(
                        f'UPDATE "{table}" SET "{column}" = replace("{column}", ?, ?) '
                        f'WHERE instr("{column}", ?) > 0',
                        (written, name, written),
                    )
        connection.commit()
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def redact_buffers(redact: Redactor) -> list[Path]:
    """Redact the sample buffers of processes that are gone and hold a credential; the
    databases redacted."""
    if not redact:
        return []
    redacted = []
    for database in sorted(inspect_data_dir("samplebuffer").glob("*/*.db")):
        pid = _buffer_pid(database)
        if pid is None or _alive(pid) or not _holds([database, _journal(database)], redact):
            continue
        _redact_database(database, redact)
        redacted.append(database)
    return redacted


def _unfinished(log: Path) -> bool:
    """Whether a log file was left before its run's end: an .eval log with no header, or a
    header or .json log whose status is still "started"."""
    try:
        if log.suffix == ".json":
            with log.open("rb") as f:
                return b'"status": "started"' in f.read(_JSON_HEAD)
        with zipfile.ZipFile(log) as archive:
            if _HEADER not in archive.namelist():
                return True
            return bool(json.loads(archive.read(_HEADER)).get("status") == "started")
    # Not a log, or one cut short: nothing Inspect can resume, and nothing of it to rewrite.
    except (OSError, ValueError, zipfile.BadZipFile):
        return False


def _written_by_a_live_process(log: Path) -> bool:
    return any(
        (pid := _buffer_pid(database)) is not None and _alive(pid)
        for database in sample_buffer_dbs(str(log))
    )


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` that replaces it once the block ends without error."""
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, path.stat().st_mode & 0o7777)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _redact_log(log: Path, redact: Redactor) -> bool:
    """Rewrite a log with every credential replaced, each member as it was (name, order,
    compression); whether it held one."""
    if log.suffix == ".json":
        data = log.read_bytes()
        redacted = redact.redact_bytes(data)
        if redacted == data:
            return False
        with _replacing(log) as temporary:
            temporary.write_bytes(redacted)
        return True
    with zipfile.ZipFile(log) as archive:
        members = [(info, archive.read(info)) for info in archive.infolist()]
    if not any(redact.found_in(data) for _, data in members):
        return False
    with _replacing(log) as temporary, zipfile.ZipFile(temporary, "w") as rewritten:
        for info, data in members:
            rewritten.writestr(info, redact.redact_bytes(data))
    return True


def redact_killed_logs(folders: Iterable[Path], redact: Redactor) -> list[Path]:
    """Redact the logs in `folders` that a run left before its end, that no live process is
    writing, and that hold a credential; the logs redacted."""
    if not redact:
        return []
    redacted = []
    for folder in sorted(set(folders)):
        for log in sorted(folder.glob("*")):
            if not (log.suffix in _LOG_SUFFIXES and log.is_file() and _unfinished(log)):
                continue
            if not _written_by_a_live_process(log) and _redact_log(log, redact):
                redacted.append(log)
    return redacted
