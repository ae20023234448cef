"""The case record: one JSON Lines record per fare-policy case, gold label included.

The same shape is declared twice on purpose, once for each reader: pydantic checks a
record and names the field that is wrong; `FEATURES` makes the `datasets` library
read the columns with fixed types instead of inferring them per file.
"""

import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from datasets import Features, List, Value


def _iso_date(text: str) -> str:
    datetime.date.fromisoformat(text)
    return text


IsoDate = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_iso_date)]
NonEmpty = Annotated[str, Field(min_length=1)]

# Strict: a JSON string "false" is not the boolean false, and a number is not a string.
_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)


class Turn(BaseModel):
    model_config = _STRICT

    role: Literal["user", "assistant"]
    content: NonEmpty


class Passage(BaseModel):
    model_config = _STRICT

    tag: NonEmpty
    agency: NonEmpty
    title: NonEmpty
    section: NonEmpty
    url: NonEmpty
    fetched: IsoDate
    text: NonEmpty


class Verdict(BaseModel):
    """A groundedness verdict: the judge's reply and the gold label have this shape."""

    model_config = _STRICT

    grounded: bool
    unsupported_claims: list[str]


class Case(BaseModel):
    model_config = _STRICT

    id: NonEmpty
    category: NonEmpty
    question: NonEmpty
    prior_turns: list[Turn]
    passages: list[Passage] = Field(min_length=1)
    answer: NonEmpty
    label: Verdict
    rationale: NonEmpty
    rules: list[str]


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
    seen: set[str] = set()
    for i, passage in enumerate(case.passages):
        if passage.tag in seen:
            problems.append((f"passages.{i}.tag", f"tag {passage.tag!r} is used twice"))
        seen.add(passage.tag)
    return problems


_TURN = {"role": Value("string"), "content": Value("string")}
# `fetched` is read as a date: the JSON reader under `datasets` turns any "YYYY-MM-DD"
# string into a timestamp, and a string column would then hold "2026-08-01 00:00:00".
_PASSAGE = {
    "tag": Value("string"),
    "agency": Value("string"),
    "title": Value("string"),
    "section": Value("string"),
    "url": Value("string"),
    "fetched": Value("date32"),
    "text": Value("string"),
}

FEATURES = Features(
    {
        "id": Value("string"),
        "category": Value("string"),
        "question": Value("string"),
        "prior_turns": List(_TURN),
        "passages": List(_PASSAGE),
        "answer": Value("string"),
        "label": {
            "grounded": Value("bool"),
            "unsupported_claims": List(Value("string")),
        },
        "rationale": Value("string"),
        "rules": List(Value("string")),
    }
)
