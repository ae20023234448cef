"""Three annotators label blind in the real page, response sets included; judge-agreement runs
over the three and judge-promote keeps every label."""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from farejudge.core.case_schema import AnnotatorKind, VerdictName
from farejudge.core.drafts import Draft
from farejudge.evals.dataset import load_cases
from farejudge.labelling import agreement_report, promote
from farejudge.labelling.label_file import read_labels
from tests.support.browser import running, select_range
from tests.support.labels import DRAFTS, KEY, write_drafts

if TYPE_CHECKING:
    from playwright.sync_api import Page

SHOWN = DRAFTS[:4]
"""Four drafts of the sample log: 1 and 3 carry an unsupported claim (KEY)."""
# Who marks what: the drafts they call ungrounded, and those where the other verdict is
# defensible too. Carol calls draft 3 grounded, though ungrounded is defensible.
ANNOTATORS: dict[str, tuple[AnnotatorKind, set[int], set[int]]] = {
    "ana": ("expert", {1, 3}, {3}),
    "ben": ("skilled", {1, 3}, set()),
    "cleo": ("crowd", {1}, {3}),
}


def _label_all(page: "Page", drafts: Path, labels: Path, who: str) -> None:
    from playwright.sync_api import expect  # the page fixture has skipped when it is missing

    kind, ungrounded, defensible = ANNOTATORS[who]
    box, text = page.locator("#defensible"), page.locator("#defensible-text")
    with running(drafts, labels, who, kind=kind) as server:
        page.goto(server.url)
        for index, draft in enumerate(SHOWN):
            expect(page.locator("#position")).to_contain_text(draft.id)
            # Nothing to mark before a verdict is chosen.
            expect(box).to_be_disabled()
            if index in ungrounded:
                select_range(page, KEY[index])
                page.keyboard.press("a")
                expect(text).to_have_text("grounded is defensible too")
            else:
                page.keyboard.press("g")
                expect(text).to_have_text("ungrounded is defensible too")
            if index in defensible:
                page.keyboard.press("d")
                expect(box).to_be_checked()
            page.locator("#reason").fill(f"{who} on draft {index}")
            page.keyboard.press("Enter")
            expect(page.locator("#progress")).to_have_text(f"{index + 1} of 4 labelled")


def _response_sets(labels: Path) -> list[list[VerdictName] | None]:
    return [label.response_set for label in read_labels(labels)]


@pytest.mark.browser
def test_the_response_set_box_follows_the_verdict(page: "Page", tmp_path: Path) -> None:
    from playwright.sync_api import expect

    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "ana.jsonl"
    write_drafts(drafts, SHOWN)
    box = page.locator("#defensible")
    with running(drafts, labels, "ana") as server:
        page.goto(server.url)
        expect(page.locator("#position")).to_contain_text(SHOWN[0].id)
        page.keyboard.press("g")
        page.keyboard.press("d")
        expect(box).to_be_checked()
        # Another verdict: what the box named changed, so it starts unticked again.
        page.keyboard.press("u")
        expect(box).not_to_be_checked()
        expect(page.locator("#defensible-text")).to_have_text("grounded is defensible too")
        # Typed into the reason, "d" is a letter, not the shortcut.
        page.locator("#reason").fill("")
        page.locator("#reason").press_sequentially("d")
        expect(box).not_to_be_checked()
        # A response set without the label's own verdict is refused in one line.
        refused = page.evaluate(
            """async (body) => {
                const response = await fetch("/api/labels", {method: "POST",
                    headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
                return {status: response.status, json: await response.json()};
            }""",
            {
                "case_id": SHOWN[0].id,
                "grounded": True,
                "spans": [],
                "reason": "r",
                "rules": [],
                "response_set": ["ungrounded"],
            },
        )
    assert refused["status"] == 400
    assert refused["json"]["error"].startswith("response_set: ")
    assert "leaves out the label's own verdict 'grounded'" in refused["json"]["error"]
    assert not labels.exists()


def _promoted(tmp_path: Path, drafts: Path, files: list[str]) -> dict[str, list[str]]:
    out = tmp_path / "agreement"
    assert agreement_report.main([*files, "--drafts", str(drafts), "--out", str(out)]) == 1
    (tmp_path / "cases").mkdir()
    args = ["--drafts", str(drafts), "--agreement", str(out / "agreement.json")]
    assert promote.main([*args, "--into", str(tmp_path / "cases"), "--release", "r1"]) == 0
    return {
        case.id: [f"{a.annotator}:{a.kind}:{a.response_set}" for a in case.annotations]
        for case in load_cases(tmp_path / "cases")
    }


@pytest.mark.browser
def test_three_annotators_label_with_response_sets_agree_and_promote(
    page: "Page", tmp_path: Path
) -> None:
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, SHOWN)
    files = []
    for who in ANNOTATORS:
        labels = tmp_path / "labels" / f"{who}.jsonl"
        _label_all(page, drafts, labels, who)
        files.append(str(labels))
    assert _response_sets(tmp_path / "labels" / "ana.jsonl") == [
        ["grounded"],
        ["ungrounded"],
        ["grounded"],
        ["ungrounded", "grounded"],
    ]
    assert _response_sets(tmp_path / "labels" / "cleo.jsonl")[3] == ["grounded", "ungrounded"]
    assert {label.kind for label in read_labels(tmp_path / "labels" / "ben.jsonl")} == {"skilled"}

    promoted = _promoted(tmp_path, drafts, files)
    record = json.loads((tmp_path / "agreement" / "agreement.json").read_text(encoding="utf-8"))
    assert record["annotators"] == ["ana", "ben", "cleo"]
    # Cleo calls draft 3 grounded: the only verdict split, so it is not promoted.
    assert [c["id"] for c in record["cases"] if not c["verdicts_agree"]] == [SHOWN[3].id]
    assert set(promoted) == {d.id for d in SHOWN[:3]}
    assert promoted[SHOWN[1].id] == [
        "ana:expert:['ungrounded']",
        "ben:skilled:['ungrounded']",
        "cleo:crowd:['ungrounded']",
    ]


def test_the_shown_drafts_cover_both_verdicts() -> None:
    # The flows above rely on drafts 1 and 3 being the ungrounded ones among the first four.
    assert sorted(i for i in KEY if i < len(SHOWN)) == [1, 3]
    assert all(isinstance(d, Draft) for d in SHOWN)
