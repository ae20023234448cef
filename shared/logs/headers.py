"""Inspect logs listed and their headers read without importing Inspect, which takes seconds.

Mirrors `inspect_ai.log.list_eval_logs` and `read_eval_log(header_only=True)` for what the
comparison reads; a log this does not cover (a .json log, a .eval log with no header.json
because its run is still going or was killed) is read by Inspect, imported only then.
"""

import json
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

# Teaches zipfile the zstd compression of .eval members.
import zipfile_zstd
import zstandard
from fsspec.core import url_to_fs

from farejudge.shared.logs.json_stream import JsonStreamError

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

_HEADER = "header.json"
_START = "_journal/start.json"
HEADER_MEMBERS = (_HEADER, _START)
"""The members a .eval log's header is read from: a finished run's, or a running one's."""
INSPECT_FILES = frozenset({"eval-set.json", "logs.json", "listing.json"})
_LOG_SUFFIXES = (".eval", ".json")
"""The JSON files Inspect itself writes beside logs: an eval set's record and the listings."""


def _read_across_frames(original: Any) -> Any:
    # Inspect writes a member over 200 MiB as several zstd frames; zipfile_zstd's
    # decompressor stops after the first, so read on across them as Inspect does.
    def decompressor(compress_type: int) -> Any:
        if compress_type == zipfile_zstd.ZIP_ZSTANDARD:
            return zstandard.ZstdDecompressor().decompressobj(read_across_frames=True)
        return original(compress_type)

    return decompressor


if not getattr(zipfile, "_inspect_ai_multiframe_installed", False):
    zipfile._get_decompressor = _read_across_frames(zipfile._get_decompressor)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Usage:
    input_tokens: int
    output_tokens: int
    total_cost: float | None


@dataclass(frozen=True)
class Header:
    """What the comparison reads of a log's header, as Inspect's EvalLog gives it."""

    eval_id: str
    task: str
    metadata: dict[str, Any]
    model: str
    status: str
    created: str
    epochs: int | None
    completed: int | None
    finished: str
    usage: dict[str, Usage]
    error: str | None
    selected: Sequence[str | int] | None
    limit: int | tuple[int, int] | None
    sample_id: str | int | Sequence[str | int] | None


def list_logs(folder: str) -> list[str]:
    """The .eval and .json files under `folder`, recursively, newest first (a local log by
    its path, not its file:// URL).

    Inspect's `list_eval_logs` takes a .json file for a log only when its name starts with a
    timestamp: a log saved as `v1-run.json` would go unseen, and with it a run. Every .json
    file is listed here; the caller reads each, and names what is not a log.
    """
    fs, bare = url_to_fs(folder, skip_instance_cache=False, use_listings_cache=False)
    fs.invalidate_cache(bare)
    files: list[tuple[float, str]] = []
    for _, _, found in fs.walk(bare, detail=True, on_error="raise"):
        for info in found.values():
            name = str(info["name"]).replace("\\", "/").split("/")[-1]
            if info["type"] == "file" and name.endswith((".eval", ".json")):
                files.append((_mtime(info), fs.unstrip_protocol(info["name"])))
    # Stable, like Inspect's sort: logs of the same time keep the order they were walked in.
    files.sort(key=lambda file: file[0], reverse=True)
    return [name.removeprefix("file://") for _, name in files]


class NotALog(ValueError):
    """A path given for logs that is none: the message says why, in one line."""


def log_files(paths: Sequence[str]) -> dict[str, bool]:
    """The log files at `paths` (files, or folders searched recursively), local or remote,
    each with whether it was named itself: such a log must be used, or it is an error."""
    found: dict[str, bool] = {}
    for path in paths:
        fs, bare = url_to_fs(path)
        if not fs.exists(bare):
            raise NotALog(f"{path}: no such log file or folder")
        if fs.isdir(bare):
            for log in list_logs(path):
                found.setdefault(log, False)
        elif path.endswith(_LOG_SUFFIXES):
            found[path] = True
        else:
            raise NotALog(f"{path}: not a log (an Inspect log is a .eval or .json file)")
    return found


def _mtime(info: dict[str, Any]) -> float:
    for key in ("mtime", "LastModified"):
        value = info.get(key)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, int | float):
            return float(value)
    return 0.0


def read_header(location: str) -> Header:
    """The header of the log at `location`."""
    if location.endswith(".eval"):
        fs, path = url_to_fs(location)
        with fs.open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
            found = archive_header(archive)
        if found is not None:
            return found
    return inspect_header(location)


def archive_header(archive: zipfile.ZipFile) -> Header | None:
    """The header of an open .eval log, from its header.json; None where Inspect must read it
    (a run still going, or killed: only its journal's start record)."""
    names = archive.namelist()
    if _HEADER in names:
        data = _json(archive.read(_HEADER))
        spec = data.get("eval")
        if isinstance(spec, dict) and spec.get("eval_id"):
            return _header(data)
    elif _START not in names:
        # Inspect would raise a KeyError naming the member.
        raise ValueError(f"no {_HEADER} and no {_START} in it")
    return None


def inspect_header(location: str) -> Header:
    """The header of the log at `location` as Inspect reads it (imported only here)."""
    from inspect_ai.log import read_eval_log

    return header_of(read_eval_log(location, header_only=True))


def _json(data: bytes) -> dict[str, Any]:
    try:
        found = json.loads(data)
    except ValueError as err:
        raise JsonStreamError(f"{_HEADER}: {err}") from err
    if not isinstance(found, dict):
        raise JsonStreamError(f"{_HEADER} is not a JSON object")
    return found


def _utc(value: str) -> str:
    """A time as Inspect's UtcDatetimeStr validates it: ISO 8601 in UTC."""
    if value.endswith(("Z", "z")):
        value = value[:-1] + "+00:00"
    moment = datetime.fromisoformat(value)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC).isoformat()


def _header(data: dict[str, Any]) -> Header:
    spec = data["eval"]
    config = spec.get("config") or {}
    results = data.get("results")
    stats = data.get("stats") or {}
    error = data.get("error")
    finished = stats.get("completed_at") or ""
    limit = config.get("limit")
    return Header(
        eval_id=spec["eval_id"],
        task=spec["task"],
        metadata=spec.get("metadata") or {},
        model=spec["model"],
        status=data.get("status", "started"),
        created=_utc(spec["created"]),
        epochs=config.get("epochs"),
        completed=results.get("completed_samples", 0) if results else None,
        finished=_utc(finished) if finished else "",
        usage={
            model: Usage(
                input_tokens=usage.get("input_tokens", 0),
                output_tokens=usage.get("output_tokens", 0),
                total_cost=usage.get("total_cost"),
            )
            for model, usage in (stats.get("model_usage") or {}).items()
        },
        error=error["message"] if error else None,
        selected=(spec.get("dataset") or {}).get("sample_ids"),
        # Inspect reads a `--limit 2,5` range as a tuple.
        limit=tuple(limit) if isinstance(limit, list) else limit,
        sample_id=config.get("sample_id"),
    )


def header_of(log: "EvalLog") -> Header:
    """The header of a log Inspect read."""
    spec, config = log.eval, log.eval.config
    return Header(
        eval_id=spec.eval_id,
        task=spec.task,
        metadata=spec.metadata or {},
        model=spec.model,
        status=log.status,
        created=str(spec.created),
        epochs=config.epochs,
        completed=log.results.completed_samples if log.results else None,
        finished=log.stats.completed_at,
        usage={
            model: Usage(u.input_tokens, u.output_tokens, u.total_cost)
            for model, u in log.stats.model_usage.items()
        },
        error=log.error.message if log.error else None,
        selected=spec.dataset.sample_ids,
        limit=config.limit,
        sample_id=config.sample_id,
    )
