"""An annotator's labels file: JSON Lines, appended to one label at a time, never rewritten.

Each submit is one line written and flushed to disk before the browser hears "saved", so
killing the labelling server loses nothing submitted. Labelling a case again appends a new
line; the latest line for a case is its label, and the earlier ones stay as the history.
"""

import os
from pathlib import Path

from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import read_records
from farejudge.labelling.records import Label


def append_label(path: Path, label: Label) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    line = label.model_dump_json() + "\n"
    # One write of one whole line, then fsync: a crash leaves the file ending on a full line.
    with path.open("a", encoding="utf-8") as f:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())


def read_labels(path: Path) -> list[Label]:
    """Every label in the file, in the order given; a missing file is no labels yet."""
    if not path.exists() or path.stat().st_size == 0:
        return []
    records, problems = read_records([path], Label, "labels", id_field="case_id", unique=False)
    if problems:
        raise InputError(problems)
    return [label for _, label in records]


def latest_labels(labels: list[Label]) -> dict[str, Label]:
    """Each case's current label: the last one given for it."""
    return {label.case_id: label for label in labels}
