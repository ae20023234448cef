"""The labelling page's session: one annotator over one drafts file, the guide it shows, and
each submitted label checked, appended to the labels file and counted.

What the page may see of a draft is decided here (`SHOWN_FIELDS`): what the judge sees and the
id to label it by, never gold, a verdict, a rationale, rules or the category.
"""

import datetime
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from farejudge.core.case_schema import STRICT, AnnotatorKind, NonEmpty, ResponseSet
from farejudge.core.drafts import Draft, read_drafts
from farejudge.core.errors import InputError
from farejudge.core.package_data import DATASETS
from farejudge.core.text_input import read_text
from farejudge.labelling.label_file import (
    append_label,
    latest_labels,
    read_numbered_labels,
    recover_torn_tail,
)
from farejudge.labelling.label_match import Unmatched, unmatched
from farejudge.labelling.records import Label, Span, span_problems

DEFAULT_GUIDE = DATASETS / "README.md"
GUIDE_SECTIONS = ("Labeling guide", "Rule vocabulary")
# What the page may see of a draft: what the judge sees, and the id to label it by. The
# category is left out because it hints at the verdict (every `partial` case is ungrounded).
SHOWN_FIELDS = {"id", "question", "prior_turns", "passages", "answer"}


@dataclass(frozen=True)
class Guide:
    text: str
    rules: list[str]


class Submission(BaseModel):
    """What the page posts: a label less what the server knows (hash, annotator, time)."""

    model_config = STRICT

    case_id: NonEmpty
    grounded: bool
    spans: list[Span]
    reason: NonEmpty
    rules: list[str]
    # Absent from a page older than the response set; the page sends its own verdict alone
    # when the annotator marked no other verdict defensible.
    response_set: ResponseSet = None


class Rejected(Exception):
    """A request the server refuses, with the HTTP status and the one line the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _section(text: str, heading: str, path: Path) -> str:
    found = re.search(rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)", text, re.S | re.M)
    if not found:
        raise InputError([f"{path}: no '## {heading}' section"])
    return found.group(0).strip()


def read_guide(path: Path) -> Guide:
    """The labelling guide and rule vocabulary sections, and the rule ids the vocabulary defines."""
    text = read_text(path, str(path))
    guide, vocabulary = (_section(text, heading, path) for heading in GUIDE_SECTIONS)
    rules = re.findall(r"^\| `([^`]+)` \|", vocabulary, re.M)
    if not rules:
        raise InputError([f"{path}: the '## Rule vocabulary' table defines no rule ids"])
    return Guide(text=f"{guide}\n\n{vocabulary}", rules=rules)


def counted_labels(drafts: list[Draft], labels: list[Label]) -> dict[str, Label]:
    """Each draft's current label; one given to other content than the draft's does not count."""
    hashes = {draft.id: draft.content_sha256 for draft in drafts}
    return latest_labels([lab for lab in labels if hashes.get(lab.case_id) == lab.content_sha256])


def _one_line(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'label'}: {e['msg']}" for e in err.errors()
    )


@dataclass
class Session:
    """One annotator over one drafts file: the drafts, and the labels given so far."""

    drafts: list[Draft]
    labels_path: Path
    annotator: str
    guide: Guide
    current: dict[str, Label]
    kind: AnnotatorKind | None = None
    """The kind of annotator (judge-label --kind), stamped on each label; None where unsaid."""
    recovered: str | None = None
    """The one line saying a torn last line was moved out of the labels file, if one was."""
    unmatched: list[Unmatched] = field(default_factory=list)
    """The labels in the file that match no draft, as the file was when the server started:
    kept in the file, counted for nothing, and shown until a label of their draft is saved."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def attention(self) -> list[str]:
        """One line for each label in the file that matches no draft (see `unmatched`)."""
        with self.lock:
            found = list(self.unmatched)
        return [each.line_text(str(self.labels_path)) for each in found]

    def state(self) -> dict[str, Any]:
        with self.lock:
            done = [draft.id in self.current for draft in self.drafts]
        return {
            "annotator": self.annotator,
            "labels_file": str(self.labels_path),
            "total": len(done),
            "labelled": sum(done),
            "next": done.index(False) if not all(done) else None,
            "attention": self.attention,
        }

    def draft_view(self, index: int) -> dict[str, Any]:
        if index >= len(self.drafts):
            raise Rejected(404, f"no draft {index}: there are {len(self.drafts)}")
        draft = self.drafts[index]
        with self.lock:
            labelled = draft.id in self.current
            found = [each for each in self.unmatched if each.case_id == draft.id]
        shown = draft.model_dump(include=SHOWN_FIELDS, mode="json")
        attention = [
            f"Line {each.line} of your labels file is a label of this draft that does not "
            f"match it: {each.why}. Check this draft and save its label again."
            for each in found
        ]
        return {"index": index, "labelled": labelled, "draft": shown, "attention": attention}

    def _label(self, body: bytes) -> Label:
        try:
            sent = Submission.model_validate_json(body)
        except ValidationError as err:
            raise Rejected(400, _one_line(err)) from err
        draft = next((d for d in self.drafts if d.id == sent.case_id), None)
        if draft is None:
            raise Rejected(404, f"no draft {sent.case_id!r} in this drafts file")
        if not sent.reason.strip() or "\n" in sent.reason or "\r" in sent.reason:
            raise Rejected(400, "the reason must be one non-blank line")
        unknown = [rule for rule in sent.rules if rule not in self.guide.rules]
        if unknown:
            raise Rejected(400, f"not in the rule vocabulary: {', '.join(unknown)}")
        try:
            label = Label(
                case_id=draft.id,
                content_sha256=draft.content_sha256,
                annotator=self.annotator,
                grounded=sent.grounded,
                spans=sent.spans,
                reason=sent.reason,
                rules=sent.rules,
                labelled_at=datetime.datetime.now(datetime.UTC),
                kind=self.kind,
                response_set=sent.response_set,
            )
        except ValidationError as err:
            raise Rejected(400, _one_line(err)) from err
        problems = span_problems(label, draft.answer)
        if problems:
            raise Rejected(400, "; ".join(problems))
        return label

    def submit(self, body: bytes) -> Label:
        """The label checked, then on disk, and only then counted."""
        label = self._label(body)
        with self.lock:
            try:
                append_label(self.labels_path, label)
            except OSError as err:
                raise Rejected(500, f"{self.labels_path}: {err.strerror or err}") from None
            self.current[label.case_id] = label
            # The draft's own label now: what the file held of it before is history.
            self.unmatched = [u for u in self.unmatched if u.case_id != label.case_id]
        return label


def open_session(
    drafts: Path,
    labels: Path,
    annotator: str,
    guide: Path,
    kind: AnnotatorKind | None = None,
) -> Session:
    """The session as the files leave it; an InputError names every problem with them."""
    if not drafts.is_file():
        raise InputError([f"{drafts}: no such drafts file"])
    read = read_drafts(drafts)
    # Before the first append: this server is the one process writing the labels file.
    recovered = recover_torn_tail(labels)
    numbered = read_numbered_labels(labels)
    given = [label for _, label in numbered]
    others = sorted({lab.annotator for lab in given} - {annotator})
    if others:
        # One file per annotator: counting someone else's labels would skip drafts.
        raise InputError([f"{labels}: holds labels by {', '.join(others)}, not {annotator}"])
    kinds = sorted({lab.kind for lab in given if lab.kind is not None} - {kind})
    if kind is not None and kinds:
        # One annotator is one kind: the alternative annotator test's margin is chosen by it.
        raise InputError(
            [f"{labels}: holds {annotator}'s labels as {', '.join(kinds)}, not {kind} (--kind)"]
        )
    current = counted_labels(read, given)
    return Session(
        read,
        labels,
        annotator,
        read_guide(guide),
        current,
        kind,
        recovered,
        unmatched(read, numbered),
    )
