"""The records of the labelling workflow: one label, and what it is given to.

A label is one annotator's verdict on one draft (`farejudge.core.drafts`) or gold case, tied
to its content hash, so a label never silently applies to a draft that changed.
"""

import datetime
from typing import Any

from pydantic import (
    BaseModel,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from farejudge.core.case_schema import (
    STRICT,
    AnnotatorKind,
    Case,
    NonEmpty,
    ResponseSet,
    checked_response_set,
)
from farejudge.core.case_schema import Span as Span
from farejudge.core.case_schema import span_problems as span_places
from farejudge.core.drafts import Draft

Labelled = Draft | Case
"""What a label is given to: a draft, or a case of the gold set."""


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
    kind: AnnotatorKind | None = Field(
        default=None, description="the kind of annotator (judge-label --kind); None if unsaid"
    )
    response_set: ResponseSet = Field(
        default=None,
        description="the verdicts the annotator found defensible, their own among them; None "
        "where they were not asked (a label saved before the page offered it)",
    )

    _response_set = field_validator("response_set")(checked_response_set)

    @model_serializer(mode="wrap")
    def _as_before_when_unsaid(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # A label without them is written exactly as before they existed.
        data: dict[str, Any] = handler(self)
        for name in ("kind", "response_set"):
            if data.get(name) is None:
                data.pop(name, None)
        return data

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
    return [f"span {i}: {problem}" for i, problem in span_places(label.spans, answer)]
