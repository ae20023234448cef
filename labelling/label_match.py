"""Whether each label belongs to the case it names, and where one does not, why: the case
changed since it was labelled, or the label itself was damaged.

A label names its case twice: by id, and by the content hash the case had when it was
labelled. An id that intake made ends with the first hex digits of the draft's content hash,
so it says what the hash was when the draft was written:

- a label whose hash is not a SHA-256, or does not begin with its id's digits, was changed
  after it was written: damaged;
- a draft whose hash no longer begins with its id's digits was edited after intake: a label
  of its earlier content is of a case that changed since;
- a draft as intake wrote it and a label of the same id with another hash: the label is
  damaged (two drafts sharing 24 digits of their hash do not happen);
- a label of no case here whose hash is a case's: its case id was damaged;
- a gold case's id carries no digits: a label with another hash is of a case that changed
  since, or is damaged, which cannot be told.

Only each case's latest label counts (the earlier ones are its history), so only that one is
checked.
"""

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from farejudge.core.drafts import content_hash
from farejudge.labelling.records import Label, Labelled

Kind = Literal["changed", "damaged", "unclear"]

_SHA256 = re.compile(r"[0-9a-f]{64}")
# Fewer digits could be a gold id's number ("price-003"); intake's ids have 10 or more.
_ID_DIGITS = re.compile(r"-([0-9a-f]{10,64})")


@dataclass(frozen=True)
class Unmatched:
    """A label that matches no case as it is written."""

    line: int
    """Its line in the labels file (its place in the list, where the labels were not read
    from a file)."""
    label: Label
    kind: Kind
    why: str
    """One line, for the annotator: what is wrong and what it means."""
    case_id: str | None
    """The case it concerns: the one it names, or the one whose hash it holds; None where it
    can be tied to none."""

    def line_text(self, labels_file: str) -> str:
        """The line that names it: `file:line: label for 'case' matches no draft: why`."""
        return (
            f"{labels_file}:{self.line}: label for {self.label.case_id!r} matches no draft: "
            f"{self.why}"
        )


def _id_digits(case_id: str) -> str | None:
    found = _ID_DIGITS.fullmatch(case_id, case_id.rfind("-"))
    return found.group(1) if found else None


def _why_other_hash(label: Label, digest: str) -> tuple[Kind, str]:
    """Why a label of a case that is here holds another hash than the case's (`digest`)."""
    written = label.content_sha256
    if not _SHA256.fullmatch(written):
        return "damaged", "its content_sha256 is not a SHA-256, so the label was damaged"
    digits = _id_digits(label.case_id)
    if digits is None:
        return "unclear", (
            "its content hash is not the case's: the case changed since, or the label was damaged"
        )
    if not written.startswith(digits):
        return "damaged", (
            "its content_sha256 does not begin with its id's digits, so the label was damaged"
        )
    if not digest.startswith(digits):
        return "changed", "the draft was edited after it was labelled"
    return "damaged", (
        "its content_sha256 is not the draft's, which is as intake wrote it, so the label was "
        "damaged"
    )


def unmatched(cases: Iterable[Labelled], labels: Sequence[tuple[int, Label]]) -> list[Unmatched]:
    """Each case id's latest label that does not match its case, in the labels' order; one whose
    case id was damaged is history once its case has a later label."""
    digests = {case.id: content_hash(case) for case in cases}
    by_hash = {digest: case_id for case_id, digest in digests.items()}
    latest = {label.case_id: (line, label) for line, label in labels}
    found = []
    for line, label in sorted(latest.values(), key=lambda item: item[0]):
        digest = digests.get(label.case_id)
        if digest == label.content_sha256:
            continue
        if digest is not None:
            kind, why = _why_other_hash(label, digest)
            found.append(Unmatched(line, label, kind, why, label.case_id))
        elif (owner := by_hash.get(label.content_sha256)) is not None:
            if (again := latest.get(owner)) is not None and again[0] > line:
                continue  # its case was labelled again since: it is history
            why = (
                f"no case here has this id, and its content hash is {owner!r}'s: its case id "
                "was damaged"
            )
            found.append(Unmatched(line, label, "damaged", why, owner))
        else:
            why = (
                "no case here has this id or its content hash: a label of another drafts "
                "file, or damaged"
            )
            found.append(Unmatched(line, label, "unclear", why, None))
    return found
