"""Where a sample keeps its case, in one place for the task that writes it and the scorer that
reads it back.

Each of the case's texts is kept once, where Inspect handles text most cheaply:
- the question and the answer in the prompt (the sample's input), each escaped inside its
  own tag, which `prompt_text` reads back exactly;
- gold in the target: the verdict, with its rationale and rules (`GoldTarget`);
- in the metadata only what a run groups and filters by: the category (and, from the suite,
  the relation); and, only for a case labelled by several annotators, each one's verdict and
  response set (`LoggedAnnotation`), which judge-compare measures the annotators by. A case
  with one label has no `annotations` key, so its sample is as it was before they existed.

Inspect summarises each sample four times in a run. It keeps an input or a target as it is
(cut at 5,120 characters), walks and serializes nested metadata each time, and shortens every
top-level metadata text with `textwrap.shorten`; even nested in the metadata, the texts cost
each sample more than in the target and the prompt
(`docs/performance.md#the-tasks-own-cost-per-sample`).
"""

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from farejudge.core.case_schema import AnnotatorKind, AnnotatorRole, Case, ResponseSet, Verdict
from farejudge.core.escaping import unescape

if TYPE_CHECKING:
    # For a signature only: judge-compare reads the annotations' key and model from here, and
    # must start without importing Inspect.
    from inspect_ai.model import ChatMessage

QUESTION_TAG = "rider_question"
ANSWER_TAG = "assistant_answer"


def tagged(tag: str, body: str) -> str:
    """`body` inside its tag, as the prompt frames each part of a case."""
    return f"<{tag}>\n{body}\n</{tag}>"


def prompt_text(prompt: str, tag: str) -> str | None:
    """The text `tag` frames in a rendered prompt, unescaped; None where the tag is absent.

    The text was escaped, so it holds no `<`: the first closing tag after the opening one is
    its own.
    """
    found = re.search(f"<{tag}>\n([^<]*)\n</{tag}>", prompt)
    return None if found is None else unescape(found.group(1))


class GoldTarget(Verdict):
    """A sample's target: gold's verdict, why it is so, and the labelling rules it rests on."""

    # Absent from the target of a log written before they moved here; such a log keeps them
    # in its metadata (`case_texts`).
    rationale: str | None = Field(default=None, description="why the gold label is what it is")
    rules: list[str] = Field(default_factory=list, description="rule ids that apply")

    @property
    def label(self) -> Verdict:
        return Verdict(grounded=self.grounded, unsupported_claims=self.unsupported_claims)


def gold_target(case: Case) -> str:
    """The target of `case`'s sample."""
    return GoldTarget(
        **case.label.model_dump(), rationale=case.rationale, rules=case.rules
    ).model_dump_json()


class LoggedAnnotation(BaseModel):
    """What a sample's metadata keeps of one annotator's label (`Annotation` without its spans,
    reason, rules and time): enough for the human ceiling, the alternative annotator test and
    the soft and response-set gold."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    annotator: str
    kind: AnnotatorKind | None
    role: AnnotatorRole
    grounded: bool
    response_set: ResponseSet


ANNOTATIONS_KEY = "annotations"
GOLD_RELATION = "gold"
"""A sample's relation (its metadata's `relation`) where it is a gold case as written; a
suite's derived or attacked case has its relation or family instead."""


def sample_metadata(case: Case) -> dict[str, Any]:
    """A sample's metadata for `case`: what a run groups by, and its annotators' verdicts
    where it has them."""
    metadata: dict[str, Any] = {"category": case.category}
    if case.annotations:
        metadata[ANNOTATIONS_KEY] = [
            LoggedAnnotation.model_validate(
                a.model_dump(include=set(LoggedAnnotation.model_fields))
            ).model_dump()
            for a in case.annotations
        ]
    return metadata


@dataclass(frozen=True)
class CaseTexts:
    """What the scorer and the viewer's columns read of a sample's case besides its label."""

    question: str
    answer: str
    rationale: str


def case_texts(
    messages: "str | Sequence[ChatMessage]", gold: GoldTarget, metadata: Mapping[str, Any]
) -> CaseTexts:
    """The case's texts from where the sample keeps them: its prompt and its target.

    A log written before they moved there (which `inspect score` may re-score) keeps them in
    its metadata: under `case`, or earlier at the top level.
    """
    if gold.rationale is None:
        nested = metadata.get("case")
        kept = nested if isinstance(nested, Mapping) else metadata
        return CaseTexts(str(kept["question"]), str(kept["answer"]), str(kept["rationale"]))
    # The case is the prompt's last message; the instructions before it are the version's.
    prompt = messages if isinstance(messages, str) else messages[-1].text
    question, answer = prompt_text(prompt, QUESTION_TAG), prompt_text(prompt, ANSWER_TAG)
    if question is None or answer is None:
        raise ValueError(f"the sample's prompt has no <{QUESTION_TAG}> or no <{ANSWER_TAG}>")
    return CaseTexts(question, answer, gold.rationale)
