"""A drafts file: the cases intake brought in, waiting for labels, one JSON Lines record each."""

from collections.abc import Iterable, Iterator
from pathlib import Path

from farejudge.core.atomic_files import atomic_output
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import FirstSeen, Report, iter_records
from farejudge.labelling.records import Draft, content_hash


def _hash_problems(draft: Draft) -> list[tuple[str, str]]:
    # An edited draft must not keep labels given to its earlier content.
    if draft.content_sha256 != content_hash(draft):
        return [("content_sha256", "does not match the draft's content (was it edited?)")]
    return []


def iter_drafts(path: Path, report: Report, ids: FirstSeen | None = None) -> Iterator[Draft]:
    """The drafts one at a time, each problem with the file reported as it is found; each id
    goes into `ids` when given."""
    for _, draft in iter_records([path], Draft, "drafts", report, check=_hash_problems, seen=ids):
        yield draft


def read_drafts(path: Path) -> list[Draft]:
    problems: list[str] = []
    drafts = list(iter_drafts(path, problems.append))
    if problems:
        raise InputError(problems)
    return drafts


def write_atomic(path: Path, lines: Iterable[str]) -> None:
    """All the lines or none (core.atomic_files): each line followed by a newline."""
    with atomic_output(path) as out:
        for line in lines:
            out.write(line + "\n")
