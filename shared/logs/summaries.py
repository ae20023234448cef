"""The samples a log holds, one at a time, as the readers of logs need them: a .eval log's
sample summaries (never its transcripts), a .json log's whole samples, each dropped once read.

What Inspect keeps of each sample beside its transcript (id, epoch, small metadata, scores,
error) is all the comparison and the audit read; they read it in one streaming pass.
"""

import json
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from fsspec.core import url_to_fs

from farejudge.shared.logs.json_stream import array_items, member_items

_SUMMARIES = "summaries.json"
_JOURNAL_SUMMARIES = "_journal/summaries/"


def archive_summaries(archive: zipfile.ZipFile) -> Iterator[dict[str, Any]]:
    """The sample summaries of an open .eval log, one at a time.

    A finished log has them in one member; one whose run was killed only in its journal,
    written in batches, in order.
    """
    names = archive.namelist()
    if _SUMMARIES in names:
        members = [_SUMMARIES]
    else:
        journal = [n for n in names if n.startswith(_JOURNAL_SUMMARIES) and n.endswith(".json")]
        members = sorted(journal, key=lambda n: int(Path(n).stem))
    for member in members:
        with archive.open(member) as stream:
            yield from array_items(stream)


def log_samples(location: str) -> Iterator[dict[str, Any]]:
    """Each sample of the log at `location` (local, or on any filesystem fsspec reads): a .eval
    log's summaries, a .json log's samples. A summary holds its error's message, a whole sample
    the error itself."""
    fs, path = url_to_fs(location)
    with fs.open(path, "rb") as raw:
        if location.endswith(".json"):
            yield from member_items(raw, "samples")
        else:
            with zipfile.ZipFile(raw) as archive:
                yield from archive_summaries(archive)


def whole_samples(
    location: str, keys: Sequence[tuple[str, int]]
) -> Iterator[tuple[tuple[str, int], dict[str, Any] | None]]:
    """Each (sample id, epoch) of `keys` with its whole sample from the .eval log at
    `location`, read in one opening of the archive: a summary keeps only what is small, and a
    reader that needs more of a few samples reads them here. None for a sample the archive
    does not hold as one member, `samples/{id}_epoch_{epoch}.json` (a sample Inspect stored in
    its chunked shape, or none at all), which Inspect's own reader then reads."""
    fs, path = url_to_fs(location)
    with fs.open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
        names = set(archive.namelist())
        for key in keys:
            member = f"samples/{key[0]}_epoch_{key[1]}.json"
            if member not in names:
                yield key, None
                continue
            with archive.open(member) as stream:
                yield key, json.load(stream)
