"""Drafts from the sample assistant log, and labels for them written as an annotator would."""

import datetime
from collections.abc import Iterable
from pathlib import Path

from farejudge.core.drafts import Draft
from farejudge.evals.dataset import load_cases
from farejudge.labelling.draft_file import write_atomic
from farejudge.labelling.intake import Drafted, intake
from farejudge.labelling.intake_mapping import load_mapping
from farejudge.labelling.records import Label, Span
from tests.support.paths import FIXTURES


def sample_drafts() -> list[Draft]:
    """The ten drafts the sample log gives."""
    log, mapping = FIXTURES / "assistant_log.jsonl", FIXTURES / "assistant_log_mapping.toml"
    drafts: list[Draft] = []
    problems: list[str] = []
    intake([log], load_mapping(mapping), load_cases(), Drafted(), drafts.append, problems.append)
    assert not problems, problems
    return drafts


def write_drafts(path: Path, drafts: Iterable[Draft]) -> None:
    """A drafts file as judge-intake writes one: each draft's JSON on a line of its own."""
    write_atomic(path, (d.model_dump_json() for d in drafts))


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


# Two annotators on the sample log's drafts, as the agreement, promotion and round-trip tests
# use them.
DRAFTS = sample_drafts()
# The sample log's unsupported claims, by draft index (the fixture's answer key).
KEY = {
    1: "You'll also need to bring your Social Security card",
    3: "Seniors also ride free on weekends",
    4: "This policy was last updated on March 3, 2026",
    6: "You can get a VA Health Identification Card by enrolling in VA health care",
    7: "I believe free transfers for half-fare riders started in September",
    9: "a PRTA day pass costs you $3.00",
}
BOB_SHORTER = "also need to bring your Social Security card"


def alice() -> list[Label]:
    return [label(d, "alice", *([KEY[i]] if i in KEY else [])) for i, d in enumerate(DRAFTS)]


def bob() -> list[Label]:
    """Bob calls the borderline hedged claim (7) grounded and drops "You'll" from span 1."""
    spans = {**KEY, 1: BOB_SHORTER}
    del spans[7]
    return [label(d, "bob", *([spans[i]] if i in spans else [])) for i, d in enumerate(DRAFTS)]
