"""What a sample's metadata holds of its case, in one place for the task that writes it and the
scorer that reads it.

At the top level, what the run groups and filters by: the category (and, from the suite, the
relation). The case's texts (question, answer, rationale, rules), which the scorer and the
reader use, sit together under `case`. Inspect summarises each sample four times in a run and
shortens every top-level text with `textwrap.shorten` each time, while a small nested value is
kept as it is: texts of a shipped case's length cost about 0.15 ms a summary flat, about 4 µs
nested (`docs/performance.md`).
"""

from collections.abc import Mapping
from typing import Any

from farejudge.core.case_schema import Case

CASE_TEXTS = ("question", "answer", "rationale", "rules")
"""The case's fields kept under `case`."""


def sample_metadata(case: Case) -> dict[str, Any]:
    """A sample's metadata for `case`."""
    return {"category": case.category, "case": case.model_dump(include=set(CASE_TEXTS))}


def case_texts(metadata: Mapping[str, Any]) -> Mapping[str, Any]:
    """The case's texts in a sample's metadata; a log written before they moved under `case`
    (which `inspect score` may re-score) has them at the top level."""
    nested = metadata.get("case")
    return nested if isinstance(nested, Mapping) else metadata
