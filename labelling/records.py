"""The records of the labelling workflow: a draft case waiting for labels, and one label.

A draft is a case without its verdict, rationale or rules: what intake writes from the
assistant's logs and what annotators see. A label is one annotator's verdict on one draft,
tied to the draft's content hash, so a label never silently applies to a draft that changed.
"""

import datetime
import hashlib
import json

from pydantic import BaseModel, Field, model_validator

from farejudge.core.case_schema import STRICT, Case, NonEmpty, Passage, Turn

DRAFT_FIELDS = ("question", "prior_turns", "passages", "answer")
"""What a case's content is: two records with these equal are the same case to label."""


class Draft(BaseModel):
    model_config = STRICT

    id: NonEmpty = Field(description="stable: derived from the content hash")
    category: NonEmpty = Field(description="the category the promoted case is filed under")
    question: NonEmpty
    prior_turns: list[Turn]
    passages: list[Passage] = Field(min_length=1)
    answer: NonEmpty
    content_sha256: NonEmpty = Field(description="hash of question, turns, passages, answer")
    source: NonEmpty = Field(description="where intake read it: file:line of the assistant log")


Labelled = Draft | Case
"""What a label is given to: a draft, or a case of the gold set."""


def content_hash(record: Labelled) -> str:
    """The hash of what is labelled; the same for a draft and the case promoted from it."""
    content = record.model_dump(include=set(DRAFT_FIELDS), mode="json")
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Span(BaseModel):
    """An unsupported claim as the annotator selected it: answer[start:end] == text."""

    model_config = STRICT

    start: int = Field(ge=0)
    end: int = Field(gt=0)
    text: NonEmpty


class Label(BaseModel):
    model_config = STRICT

    case_id: NonEmpty
    content_sha256: NonEmpty = Field(description="the draft's content hash when labelled")
    annotator: NonEmpty
    grounded: bool
    spans: list[Span] = Field(description="the unsupported claims; empty when grounded")
    reason: NonEmpty = Field(description="one line: why the verdict is what it is")
    rules: list[str] = Field(default_factory=list, description="rule ids that apply")
    labelled_at: datetime.datetime | None = Field(
        description="when it was submitted; None for a gold case read as a label"
    )

    @model_validator(mode="after")
    def _verdict_matches_spans(self) -> "Label":
        if self.grounded == bool(self.spans):
            raise ValueError("a grounded label has no spans, an ungrounded one at least one")
        for span in self.spans:
            if span.end <= span.start:
                raise ValueError(f"span {span.text!r} ends before it starts")
        return self


def span_problems(label: Label, answer: str) -> list[str]:
    """Spans whose offsets do not select their text in the answer."""
    return [
        f"span {i}: answer[{s.start}:{s.end}] is {answer[s.start : s.end]!r}, not {s.text!r}"
        for i, s in enumerate(label.spans)
        if answer[s.start : s.end] != s.text
    ]
