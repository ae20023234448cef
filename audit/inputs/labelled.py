"""The period's labels: the annotators' labels files (`judge-label`'s), read against the sample.

Each file is read by judge-label's own reader; a file's latest label of a draft is its label.
A file is one annotator's: several annotators each give their own file, and a draft two or
more of them labelled has the mean of their labels (1 ungrounded, 0 grounded) as its label,
a share in [0, 1] (docs/audit.md, "Several annotators", says what the estimate then means).
Nothing is estimated from labels that may not be what the annotators gave, so each of these is
an error naming the file and line: a torn last line (a save interrupted, or still being
written); a label of a draft outside the sample; a label of other content than the draft the
judge judged; a file holding several annotators' labels; two files of one annotator; no labels
of the sample at all.
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
    """The mean of the draft's labels: 1 ungrounded, 0 grounded, between where annotators
    differ."""
    files: list[str]
    annotators: list[str]
    by_annotator: Floats
    """Each annotator's label of each draft: a row per draft of `ids`, a column per annotator
    of `annotators`, NaN where that annotator did not label it (`farejudge.raters`' matrix)."""
    labelled: list[int]
    """How many of the sample's drafts each annotator of `annotators` labelled."""
    annotator_files: list[str]
    """Each annotator's labels file, in `annotators`' order."""


def _numbered(path: Path) -> list[tuple[int, Label]]:
    """The file's labels with their lines; an InputError for a torn last line or a bad line
    (the reader names it)."""
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
    return list(read_numbered_labels(path))


def _annotator(name: str, labels: Sequence[tuple[int, Label]]) -> str | None:
    """The one annotator of a file's labels, its earlier ones included (None for a file with
    none), or an InputError naming the first line of a second annotator."""
    first: tuple[int, str] | None = None
    for line, label in labels:
        if first is None:
            first = (line, label.annotator)
        elif label.annotator != first[1]:
            raise InputError(
                [
                    f"{name}:{line}: label by {label.annotator!r}, but {name}:{first[0]} is by "
                    f"{first[1]!r}: a labels file is one annotator's; give each annotator's "
                    "labels in a file of their own"
                ]
            )
    return None if first is None else first[1]


def read_sample_labels(
    paths: Sequence[Path], sample: AuditSample, sample_file: str, content: Mapping[str, str]
) -> SampleLabels:
    """The labels of the sample's drafts from `paths`, one file an annotator, or an InputError
    naming every bad label, one a line. `content` is each sampled draft's content hash as the
    judge judged it."""
    drawn = set(sample.ids)
    problems: list[str] = []
    given: dict[str, dict[str, float]] = {}
    owner: dict[str, str] = {}
    for path in paths:
        name = shown(path)
        numbered = _numbered(path)
        annotator = _annotator(name, numbered)
        if annotator is None:
            continue
        if annotator in owner:
            raise InputError(
                [
                    f"{name}: labels by {annotator!r}, as {owner[annotator]} holds: two files "
                    "of one annotator; give each annotator's labels once, in one file"
                ]
            )
        owner[annotator] = name
        mine = given.setdefault(annotator, {})
        # A file's latest label of a draft is its label.
        latest = {label.case_id: (line, label) for line, label in numbered}
        for draft, (line, label) in sorted(latest.items(), key=lambda item: item[1][0]):
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
            mine[draft] = 0.0 if label.grounded else 1.0
    if problems:
        raise InputError(problems)
    annotators = sorted(given)
    ids = [draft for draft in sample.ids if any(draft in given[a] for a in annotators)]
    files = ", ".join(shown(path) for path in paths)
    if not ids:
        raise InputError(
            [f"{files}: no labels of the sample's drafts: a period with no labels has no estimate"]
        )
    if len(ids) < 2:
        raise InputError(
            [f"{files}: 1 label of the sample's drafts: the estimate needs 2 at least"]
        )
    matrix = np.array([[given[a].get(draft, np.nan) for a in annotators] for draft in ids])
    return SampleLabels(
        ids=ids,
        values=np.nanmean(matrix, axis=1),
        files=[shown(path) for path in paths],
        annotators=annotators,
        by_annotator=matrix,
        labelled=[len(given[a]) for a in annotators],
        annotator_files=[owner[a] for a in annotators],
    )
