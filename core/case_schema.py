"""The case record: one JSON Lines record per fare-policy case, gold label included.

`Case` is the only declaration of the record's shape. Everything else that describes it is
derived from the model: `case_features()` here, for the `datasets` library, and the dataset
card's `dataset_info` and schema table (scripts/dataset_card.py writes both into
datasets/README.md).
"""

import datetime
import functools
from dataclasses import dataclass
from types import UnionType
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    ValidationInfo,
    field_validator,
    model_serializer,
)

if TYPE_CHECKING:
    from datasets import Features


@dataclass(frozen=True)
class StoredAs:
    """A field's column type in `datasets` (a `Value` dtype), where its Python type would
    give the wrong one."""

    dtype: str


def _iso_date(text: str) -> str:
    datetime.date.fromisoformat(text)
    return text


# Stored as a date by `datasets`: its JSON reader turns any "YYYY-MM-DD" string into a
# timestamp, and a string column would then hold "2026-08-01 00:00:00".
IsoDate = Annotated[
    str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_iso_date), StoredAs("date32")
]
NonEmpty = Annotated[str, Field(min_length=1)]

# Strict: a JSON string "false" is not the boolean false, and a number is not a string.
STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class Turn(BaseModel):
    model_config = STRICT

    role: Literal["user", "assistant"] = Field(description="who spoke")
    content: NonEmpty = Field(description="what they said")


class Passage(BaseModel):
    model_config = STRICT

    tag: NonEmpty = Field(description="`P1`, `P2`, … in order, unique within a case")
    agency: NonEmpty = Field(description="the agency, from the corpus document's front matter")
    title: NonEmpty = Field(description="the document's title, from its front matter")
    section: NonEmpty = Field(description="the `## Section` of the document the text is from")
    url: NonEmpty = Field(description="the document's URL, from its front matter")
    fetched: IsoDate = Field(
        description="the day the document was fetched (a calendar date), from its front "
        "matter; `load_dataset` gives it as a date"
    )
    text: NonEmpty = Field(description="a verbatim part of that section")


class Verdict(BaseModel):
    """A groundedness verdict: the judge's reply and the gold label have this shape."""

    model_config = STRICT

    grounded: bool = Field(description="`true` exactly when `unsupported_claims` is empty")
    unsupported_claims: list[str] = Field(
        description="each unsupported claim, copied verbatim from `answer` (see the labeling guide)"
    )


VerdictName = Literal["grounded", "ungrounded"]
"""A verdict by name, as a response set lists the verdicts an annotator finds defensible."""

AnnotatorKind = Literal["expert", "skilled", "crowd", "model"]
"""Who an annotator is, as the alternative annotator test's margin ε depends on it: the paper's
0.2 for experts, 0.15 for skilled annotators, 0.1 for crowd workers."""

ResponseSet = list[VerdictName] | None

AnnotatorRole = Literal["annotator", "adjudicator"]


def verdict_name(grounded: bool) -> VerdictName:
    return "grounded" if grounded else "ungrounded"


def checked_response_set(response_set: ResponseSet, info: ValidationInfo) -> ResponseSet:
    """A response set holds the label's own verdict (`grounded`, validated before it), each
    verdict once."""
    if response_set is None or "grounded" not in info.data:
        return response_set
    own = verdict_name(info.data["grounded"])
    if own not in response_set:
        raise ValueError(f"leaves out the label's own verdict {own!r}: {response_set}")
    if len(set(response_set)) != len(response_set):
        raise ValueError(f"names a verdict twice: {response_set}")
    return response_set


class Span(BaseModel):
    """An unsupported claim as the annotator selected it: answer[start:end] == text."""

    model_config = STRICT

    start: int = Field(ge=0, description="its first character in `answer` (code points)")
    end: int = Field(gt=0, description="the character after its last")
    text: NonEmpty = Field(description="`answer[start:end]`")


class Annotation(BaseModel):
    """One annotator's label of a case, kept beside the settled gold."""

    model_config = STRICT

    annotator: NonEmpty = Field(description="who labelled: the name in their labels file")
    kind: AnnotatorKind | None = Field(
        description="the kind of annotator, which sets the alternative annotator test's margin "
        "ε; null where it was not recorded"
    )
    role: AnnotatorRole = Field(
        description="`adjudicator` for the label that settled a disagreement"
    )
    grounded: bool = Field(description="the annotator's verdict")
    spans: list[Span] = Field(description="the claims they marked unsupported")
    response_set: ResponseSet = Field(
        description="the verdicts they found defensible, their own among them (`grounded`, "
        "`ungrounded`); null where they were not asked"
    )
    reason: NonEmpty = Field(description="their one-line reason")
    rules: list[str] = Field(description="the rule ids they ticked")
    labelled_at: Annotated[datetime.datetime | None, StoredAs("timestamp[us, tz=UTC]")] = Field(
        description="when they submitted it (UTC)"
    )

    _response_set = field_validator("response_set")(checked_response_set)


class Case(BaseModel):
    model_config = STRICT

    id: NonEmpty = Field(
        description="unique across all files: `<prefix>-NNN` "
        "(`conv-`, `fresh-`, `prov-`, `price-`, …)"
    )
    category: NonEmpty = Field(description="one of the categories below; equals the file name")
    question: NonEmpty = Field(description="the rider's current question")
    prior_turns: list[Turn] = Field(description="earlier turns; `[]` for single-turn cases")
    passages: list[Passage] = Field(
        min_length=1, description="the passages the assistant retrieved"
    )
    answer: NonEmpty = Field(description="the assistant answer under audit")
    label: Verdict = Field(description="the gold verdict")
    rationale: NonEmpty = Field(description="why the gold label is what it is")
    rules: list[str] = Field(description="rule ids from the vocabulary below")
    annotations: list[Annotation] = Field(
        default_factory=list,
        description="every annotator's label that gold was settled from; absent (null when "
        "loaded with `datasets`) for a case with one label",
    )

    @model_serializer(mode="wrap")
    def _single_label_as_before(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ) -> dict[str, Any]:
        # A case without annotations is written exactly as before they existed.
        data: dict[str, Any] = handler(self)
        if not self.annotations:
            data.pop("annotations", None)
        return data


def case_problems(case: Case) -> list[tuple[str, str]]:
    """Rules that hold across fields, as (field, problem) pairs."""
    problems: list[tuple[str, str]] = []
    claims = case.label.unsupported_claims
    if case.label.grounded and claims:
        problems.append(("label", "grounded is true but unsupported_claims is not empty"))
    if not case.label.grounded and not claims:
        problems.append(("label", "grounded is false but unsupported_claims is empty"))
    for i, claim in enumerate(claims):
        if claim not in case.answer:
            problems.append(
                (f"label.unsupported_claims.{i}", f"{claim!r} is not a verbatim part of the answer")
            )
    for i, annotation in enumerate(case.annotations):
        problems += [
            (f"annotations.{i}.spans.{j}", problem)
            for j, problem in span_problems(annotation.spans, case.answer)
        ]
        if annotation.grounded == bool(annotation.spans):
            problem = "a grounded label has no spans, an ungrounded one at least one"
            problems.append((f"annotations.{i}", problem))
    seen: set[str] = set()
    for i, passage in enumerate(case.passages):
        if passage.tag in seen:
            problems.append((f"passages.{i}.tag", f"tag {passage.tag!r} is used twice"))
        seen.add(passage.tag)
    return problems


def span_problems(spans: list[Span], answer: str) -> list[tuple[int, str]]:
    """Spans whose offsets do not select their text in the answer, by their place."""
    return [
        (i, f"answer[{s.start}:{s.end}] is {answer[s.start : s.end]!r}, not {s.text!r}")
        for i, s in enumerate(spans)
        if answer[s.start : s.end] != s.text
    ]


def _feature(annotation: Any, metadata: list[Any]) -> Any:
    """The `datasets` feature for one field; a `StoredAs` in its metadata overrides its type."""
    from datasets import List, Value

    stored = [item for item in metadata if isinstance(item, StoredAs)]
    if stored:
        return Value(stored[0].dtype)
    if annotation is str or get_origin(annotation) is Literal:
        return Value("string")
    if annotation is bool:
        return Value("bool")
    if annotation is int:
        return Value("int64")
    if get_origin(annotation) in (Union, UnionType):
        # An optional field: `datasets` columns are nullable already.
        (present,) = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _feature(present, [])
    if get_origin(annotation) is list:
        (item,) = get_args(annotation)
        return List(_feature(item, []))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _features(annotation)
    # A new kind of field must be given its column type here, not guessed.
    raise TypeError(f"no `datasets` feature for {annotation!r}")


def _features(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: _feature(field.annotation, field.metadata)
        for name, field in model.model_fields.items()
    }


@functools.cache
def case_features() -> "Features":
    """The case's columns for the `datasets` library, so that it reads them with fixed types
    instead of inferring them per file.

    Built on first use: importing `datasets` (and the pandas it brings) takes over a second,
    and nothing that judges, compares or labels cases needs it.
    """
    from datasets import Features

    return Features(_features(Case))
