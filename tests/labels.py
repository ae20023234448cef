"""Drafts from the sample assistant log, and labels for them written as an annotator would."""

import datetime
from pathlib import Path

from farejudge.evals.dataset import load_cases
from farejudge.labelling.intake import intake
from farejudge.labelling.intake_mapping import load_mapping
from farejudge.labelling.records import Draft, Label, Span

FIXTURES = Path(__file__).parent / "fixtures"


def sample_drafts() -> list[Draft]:
    """The ten drafts the sample log gives."""
    log, mapping = FIXTURES / "assistant_log.jsonl", FIXTURES / "assistant_log_mapping.toml"
    return intake([log], load_mapping(mapping), load_cases(), existing=[]).drafts


def label(
    draft: Draft, annotator: str, *spans: str, reason: str = "", rules: tuple[str, ...] = ()
) -> Label:
    """A label marking each of `spans` (verbatim text of the answer); none means grounded."""
    marked = []
    for text in spans:
        start = draft.answer.index(text)
        marked.append(Span(start=start, end=start + len(text), text=text))
    return Label(
        case_id=draft.id,
        content_sha256=draft.content_sha256,
        annotator=annotator,
        grounded=not spans,
        spans=marked,
        reason=reason or ("every claim is in the passages" if not spans else "not in the passages"),
        rules=list(rules),
        labelled_at=datetime.datetime(2026, 11, 30, tzinfo=datetime.UTC),
    )
