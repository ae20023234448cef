"""The contested set's shipped drafts (datasets/contested): a drafts file the labelling page
reads, each draft's hash recomputed, its passages the corpus's own, its kinds as the card says."""

import re
from collections import Counter
from pathlib import Path

import pytest

from farejudge.core.drafts import Draft, content_hash, read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import CONTESTED, DEFAULT_CASES, load_cases
from farejudge.evals.metamorphic.policy_corpus import load_corpus
from farejudge.labelling.intake import ID_HEX_DIGITS, evidence_key
from farejudge.labelling.label_session import SHOWN_FIELDS, open_session
from tests.support.browser import GUIDE

DRAFTS_FILE = CONTESTED / "drafts.jsonl"
CARD = CONTESTED / "README.md"


@pytest.fixture(scope="module")
def drafts() -> list[Draft]:
    return read_drafts(DRAFTS_FILE)


def test_every_hash_and_id_is_what_the_project_computes(drafts: list[Draft]) -> None:
    assert len(drafts) >= 44
    for draft in drafts:
        digest = content_hash(draft)
        assert draft.content_sha256 == digest, draft.id
        assert draft.id == f"contested-{digest[:ID_HEX_DIGITS]}"
    assert len({d.id for d in drafts}) == len(drafts)


def test_an_edited_draft_is_refused_by_its_hash(tmp_path: Path) -> None:
    lines = DRAFTS_FILE.read_text(encoding="utf-8").splitlines()
    edited = tmp_path / "drafts.jsonl"
    # One character of the third draft's answer, as a hand edit would change it.
    lines[2] = re.sub(r'("answer":"[^"]*?)\.', r"\1!", lines[2], count=1)
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_drafts(edited)
    (problem,) = caught.value.problems
    assert problem.startswith(f"{edited}:3: ")
    assert "content_sha256" in problem


def test_kinds_are_many_each_several_and_none_a_gold_category(drafts: list[Draft]) -> None:
    kinds = Counter(d.category for d in drafts)
    assert len(kinds) >= 8
    assert min(kinds.values()) >= 4
    gold_categories = {case.category for case in load_cases(DEFAULT_CASES)}
    assert not set(kinds) & gold_categories


def test_the_card_counts_each_kind_as_the_file_holds_it(drafts: list[Draft]) -> None:
    block = CARD.read_text(encoding="utf-8").split("<!-- kinds:start -->")[1]
    block = block.split("<!-- kinds:end -->")[0]
    rows = dict(re.findall(r"^\| `([a-z-]+)` \| (\d+) \|", block, re.M))
    assert {kind: int(n) for kind, n in rows.items()} == Counter(d.category for d in drafts)
    assert f"| **all** | {len(drafts)} |" in block


def test_every_passage_is_a_corpus_section_with_its_documents_header(
    drafts: list[Draft],
) -> None:
    sections = {(s.url, s.section): s for s in load_corpus()}
    for draft in drafts:
        assert [p.tag for p in draft.passages] == [
            f"P{i}" for i in range(1, len(draft.passages) + 1)
        ]
        for passage in draft.passages:
            section = sections[(passage.url, passage.section)]
            assert passage.text in section.text, (draft.id, passage.section)
            assert not section.addressed_to_judge, draft.id
            assert (passage.agency, passage.title, passage.fetched) == (
                section.agency,
                section.title,
                section.fetched,
            )


def test_no_draft_is_a_gold_case_that_intake_would_skip(drafts: list[Draft]) -> None:
    gold = {evidence_key(case) for case in load_cases(DEFAULT_CASES)}
    assert not [d.id for d in drafts if evidence_key(d) in gold]


def test_the_page_opens_the_file_and_shows_no_kind(tmp_path: Path, drafts: list[Draft]) -> None:
    session = open_session(DRAFTS_FILE, tmp_path / "ana.jsonl", "ana", GUIDE, "expert")
    assert session.state()["total"] == len(drafts)
    for index, draft in enumerate(drafts):
        shown = session.draft_view(index)["draft"]
        assert set(shown) == SHOWN_FIELDS
        assert shown["id"] == draft.id
        assert draft.category not in str(shown)
