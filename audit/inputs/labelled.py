"""The period's labels: the annotators' labels files (`judge-label`'s), read against the sample.

Each file is read by judge-label's own reader; a file's latest label of a draft is its label.
Nothing is estimated from labels that may not be what the annotators gave, so each of these is
an error naming the file and line: a torn last line (a save interrupted, or still being
written); a label of a draft outside the sample; a label of other content than the draft the
judge judged; two files labelling one draft differently; no labels of the sample at all.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from farejudge.audit.stats.arrays import Floats
from farejudge.audit.stats.design import AuditSample
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown
from farejudge.labelling.label_file import read_numbered_labels, torn_tail
from farejudge.labelling.records import Label


@dataclass(frozen=True)
class SampleLabels:
    """The labelled drafts of the sample, in the sample's order."""

    ids: list[str]
    values: Floats
    """1 ungrounded, 0 grounded."""
    files: list[str]
    annotators: list[str]


def _word(label: Label) -> str:
    return "grounded" if label.grounded else "ungrounded"


def _latest(path: Path) -> dict[str, tuple[int, Label]]:
    """Each draft's latest label in the file, with its line; an InputError for a torn last
    line or a bad line (the reader names it)."""
    name = shown(path)
    if not path.is_file():
        raise InputError([f"{name}: no such labels file"])
    try:
        tail = torn_tail(path.read_bytes())
    except OSError as err:
        raise InputError([f"{name}: {err.strerror or err}"]) from None
    if tail is not None:
        raise InputError(
            [
                f"{name}:{tail.line}: torn last line (an interrupted save, {len(tail.data)} "
                "bytes): no estimate from a labels file mid-save; start judge-label on it once "
                "(it moves the line aside), label that draft again, then estimate"
            ]
        )
    return {label.case_id: (line, label) for line, label in read_numbered_labels(path)}


def read_sample_labels(
    paths: Sequence[Path], sample: AuditSample, sample_file: str, content: Mapping[str, str]
) -> SampleLabels:
    """The labels of the sample's drafts from `paths`, or an InputError naming every bad label,
    one a line. `content` is each sampled draft's content hash as the judge judged it."""
    drawn = set(sample.ids)
    problems: list[str] = []
    chosen: dict[str, tuple[str, int, Label]] = {}
    annotators: set[str] = set()
    for path in paths:
        name = shown(path)
        for draft, (line, label) in sorted(_latest(path).items(), key=lambda item: item[1][0]):
            where = f"{name}:{line}: label for {draft!r}"
            if draft not in drawn:
                problems.append(
                    f"{where} names a draft outside the sample ({sample_file} draws "
                    f"{len(sample.ids)} of {sample.population:,} drafts): a label of another "
                    "period's sample?"
                )
                continue
            if label.content_sha256 != content.get(draft):
                problems.append(
                    f"{where} is of other content than the draft the judge judged: the draft "
                    "changed since it was labelled, or the label was damaged"
                )
                continue
            earlier = chosen.get(draft)
            if earlier is not None and earlier[2].grounded != label.grounded:
                problems.append(
                    f"{where} says {_word(label)}, but {earlier[0]}:{earlier[1]} says "
                    f"{_word(earlier[2])}: settle it (one label a draft) before the estimate"
                )
                continue
            chosen.setdefault(draft, (name, line, label))
            annotators.add(label.annotator)
    if problems:
        raise InputError(problems)
    ids = [draft for draft in sample.ids if draft in chosen]
    files = ", ".join(shown(path) for path in paths)
    if not ids:
        raise InputError(
            [f"{files}: no labels of the sample's drafts: a period with no labels has no estimate"]
        )
    if len(ids) < 2:
        raise InputError(
            [f"{files}: 1 label of the sample's drafts: the estimate needs 2 at least"]
        )
    return SampleLabels(
        ids=ids,
        values=np.array([0.0 if chosen[draft][2].grounded else 1.0 for draft in ids]),
        files=[shown(path) for path in paths],
        annotators=sorted(annotators),
    )
