"""A draft case and the drafts file: a case without its verdict, rationale or rules.

What intake writes from the assistant's logs, what annotators label blind, and what the
production judge judges (`farejudge/judge_production`). Each draft carries the hash of its
content, so a label or a verdict never silently applies to a draft that changed.
"""

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel, Field

from farejudge.core.case_schema import STRICT, Case, NonEmpty, Passage, Turn
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import FirstSeen, Report, iter_records

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


def content_hash(record: Draft | Case) -> str:
    """The hash of what is labelled; the same for a draft and the case promoted from it."""
    content = record.model_dump(include=set(DRAFT_FIELDS), mode="json")
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _hash_problems(draft: Draft) -> list[tuple[str, str]]:
    # An edited draft must not keep labels given to its earlier content.
    if draft.content_sha256 != content_hash(draft):
        return [("content_sha256", "does not match the draft's content (was it edited?)")]
    return []


def iter_drafts(path: Path, report: Report, ids: FirstSeen | None = None) -> Iterator[Draft]:
    """The drafts one at a time, each problem with the file reported as it is found; each id
    goes into `ids` when given."""
    for _, draft in iter_records([path], Draft, "drafts", report, check=_hash_problems, seen=ids):
        yield draft


def read_drafts(path: Path) -> list[Draft]:
    """Every draft of the file, or an InputError naming every problem with it, one a line."""
    problems: list[str] = []
    drafts = list(iter_drafts(path, problems.append))
    if problems:
        raise InputError(problems)
    return drafts
