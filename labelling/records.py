"""The records of the labelling workflow: one label, and what it is given to.

A label is one annotator's verdict on one draft (`farejudge.core.drafts`) or gold case, tied
to its content hash, so a label never silently applies to a draft that changed.
"""

import datetime

from pydantic import BaseModel, Field, model_validator

from farejudge.core.case_schema import STRICT, Case, NonEmpty
from farejudge.core.drafts import Draft

Labelled = Draft | Case
"""What a label is given to: a draft, or a case of the gold set."""


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
