"""The blind labelling page in a real headless Chromium: label, stop, resume, and stay local."""

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from farejudge.core.case_schema import Passage, Turn
from farejudge.core.drafts import Draft, content_hash
from tests.support.browser import running, select_range
from tests.support.json_values import keys
from tests.support.labels import write_drafts

if TYPE_CHECKING:
    from playwright.sync_api import Page

ANNOTATOR = "ana"
PASSAGE = Passage(
    tag="P1",
    agency="Harbor City Transit",
    title="Reduced Fare Policy",
    section="Seniors",
    url="https://example.org/harbor/reduced-fares",
    fetched="2026-08-01",
    text="Riders 65 and older pay $1.25 per ride with a Senior Tap Card. The card is free.",
)
# After the emoji, JavaScript's UTF-16 offsets run one ahead of Python's code points.
UNGROUNDED_ANSWER = "Yes 🚌 — seniors pay $1.25, and the Senior Tap Card costs $3 at any station."
MOUSE_SPAN = "the Senior Tap Card costs $3"
RANGE_SPAN = "Seniors ride free on Sundays"
FORBIDDEN_KEYS = {"label", "rationale", "rules", "grounded"}


def _draft(question: str, answer: str, prior_turns: list[Turn]) -> Draft:
    unhashed = Draft(
        id="pending",
        category="price",
        question=question,
        prior_turns=prior_turns,
        passages=[PASSAGE],
        answer=answer,
        content_sha256="pending",
        source="assistant.log:1",
    )
    digest = content_hash(unhashed)
    return unhashed.model_copy(update={"id": f"draft-{digest[:8]}", "content_sha256": digest})


DRAFTS = [
    _draft(
        "And what does he pay?",
        "Riders 65 and older pay $1.25 per ride with a Senior Tap Card.",
        [
            Turn(role="user", content="My father is 70."),
            Turn(role="assistant", content="Seniors get a reduced fare."),
        ],
    ),
    _draft("What does the senior card cost?", UNGROUNDED_ANSWER, []),
    _draft("Is Sunday free?", f"{RANGE_SPAN}, and the card is free.", []),
]


def _lines(labels: Path) -> list[dict[str, Any]]:
    """The labels file line by line, each without its time, after checking that it is UTC."""
    lines = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        assert line.pop("labelled_at").endswith("Z")
    return lines


def _expected(draft: Draft, spans: list[str], reason: str, rules: list[str]) -> dict[str, Any]:
    """The label the page saves; no other verdict marked defensible, its response set is the
    annotator's own verdict."""
    return {
        "case_id": draft.id,
        "content_sha256": draft.content_sha256,
        "annotator": ANNOTATOR,
        "grounded": not spans,
        "spans": [
            {"start": draft.answer.index(s), "end": draft.answer.index(s) + len(s), "text": s}
            for s in spans
        ],
        "reason": reason,
        "rules": rules,
        "response_set": ["ungrounded" if spans else "grounded"],
    }


def _drag_over(page: "Page", needle: str) -> None:
    """Select `needle` in the answer as a person does: press on its first character, drag to
    its last, release."""
    page.locator("#answer").scroll_into_view_if_needed()
    first, last = page.evaluate(
        """(needle) => {
            const node = document.getElementById("answer").firstChild;
            const from = node.data.indexOf(needle), to = from + needle.length;
            const box = (a, b) => {
                const range = new Range();
                range.setStart(node, a);
                range.setEnd(node, b);
                const r = range.getBoundingClientRect();
                return {x: r.x, y: r.y, width: r.width, height: r.height};
            };
            return [box(from, from + 1), box(to - 1, to)];
        }""",
        needle,
    )
    page.mouse.move(first["x"] + 1, first["y"] + first["height"] / 2)
    page.mouse.down()
    page.mouse.move(last["x"] + last["width"] - 1, last["y"] + last["height"] / 2, steps=5)
    page.mouse.up()


def _fetch(page: "Page", path: str, body: object = None) -> Any:
    """The page's own request to its server: the JSON it answers and its status."""
    return page.evaluate(
        """async ([path, body]) => {
            const options = body === null ? {} : {
                method: "POST", headers: {"Content-Type": "application/json"},
                body: JSON.stringify(body)};
            const response = await fetch(path, options);
            return {status: response.status, json: await response.json()};
        }""",
        [path, body],
    )


@pytest.mark.browser
def test_an_annotator_labels_stops_resumes_and_the_page_stays_blind_and_local(
    page: "Page", tmp_path: Path
) -> None:
    from playwright.sync_api import expect  # the fixture has skipped when it is missing

    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "labels" / f"{ANNOTATOR}.jsonl"
    write_drafts(drafts, DRAFTS)
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    progress, position = page.locator("#progress"), page.locator("#position")

    with running(drafts, labels, ANNOTATOR) as server:
        port = server.server_address[1]
        page.goto(server.url)
        expect(progress).to_have_text("0 of 3 labelled")
        expect(position).to_contain_text(DRAFTS[0].id)
        expect(page.locator("#turns-block")).to_contain_text("context, never evidence")
        expect(page.locator(".passage-header")).to_have_text(
            "[P1] Harbor City Transit | Reduced Fare Policy | Seniors"
        )
        expect(page.locator(".provenance")).to_have_text(
            "(source: https://example.org/harbor/reduced-fares, fetched 2026-08-01)"
        )
        expect(page.locator("#guide")).to_contain_text("## Labeling guide")

        # Grounded, by keys alone; the reason's letters include shortcut keys, which must type.
        page.keyboard.press("g")
        page.keyboard.press("r")
        page.keyboard.type("supported: P1 gives 65 and up, $1.25")
        page.keyboard.press("Enter")
        expect(progress).to_have_text("1 of 3 labelled")
        expect(position).to_contain_text(DRAFTS[1].id)

        # Ungrounded: a wrong span added and removed, then the right one dragged with the mouse.
        select_range(page, "Yes")
        page.keyboard.press("a")
        page.locator("#spans button.remove").click()
        expect(page.locator("#spans li")).to_have_count(0)
        _drag_over(page, MOUSE_SPAN)
        assert page.evaluate("getSelection().toString()") == MOUSE_SPAN
        page.keyboard.press("a")
        expect(page.locator("#spans li")).to_have_count(1)
        expect(page.locator("input[name=verdict][value=ungrounded]")).to_be_checked()
        page.locator("#rules-panel summary").click()
        page.locator("input[name=rule][value=price-invented]").check()
        page.locator("#reason").fill("P1 says the card is free")
        page.locator("#save").click()
        expect(progress).to_have_text("2 of 3 labelled")

        # Blind: a draft's JSON has no verdict-like key; a span that is not the answer's is
        # refused with one line.
        shown = _fetch(page, "/api/drafts/1")
        assert shown["status"] == 200 and not keys(shown["json"]) & FORBIDDEN_KEYS
        bad = {"case_id": DRAFTS[1].id, "grounded": False, "reason": "r", "rules": []}
        bad["spans"] = [{"start": 0, "end": 3, "text": "Nope"}]
        refused = _fetch(page, "/api/labels", bad)
        assert refused["status"] == 400 and "\n" not in refused["json"]["error"]

    expected = [
        _expected(DRAFTS[0], [], "supported: P1 gives 65 and up, $1.25", []),
        _expected(DRAFTS[1], [MOUSE_SPAN], "P1 says the card is free", ["price-invented"]),
    ]
    assert _lines(labels) == expected
    span = expected[1]["spans"][0]
    assert UNGROUNDED_ANSWER[span["start"] : span["end"]] == MOUSE_SPAN

    # Restarted on the same files and port: the page resumes at the one draft left.
    with running(drafts, labels, ANNOTATOR, port):
        page.reload()
        expect(progress).to_have_text("2 of 3 labelled")
        expect(position).to_contain_text(DRAFTS[2].id)
        select_range(page, RANGE_SPAN)
        page.keyboard.press("a")
        page.locator("#reason").fill("no passage mentions Sundays")
        page.keyboard.press("Control+Enter")
        expect(progress).to_have_text("3 of 3 labelled")
        expect(page.locator("#end-text")).to_contain_text("All 3 drafts labelled")
        page.keyboard.press("p")
        expect(page.locator("#relabel")).to_be_visible()

    expected.append(_expected(DRAFTS[2], [RANGE_SPAN], "no passage mentions Sundays", []))
    assert _lines(labels) == expected
    assert requested and {urlsplit(url).netloc for url in requested} == {f"127.0.0.1:{port}"}


@pytest.mark.browser
def test_a_label_that_matches_no_draft_is_shown_until_its_draft_is_labelled_again(
    page: "Page", tmp_path: Path
) -> None:
    from playwright.sync_api import expect  # the fixture has skipped when it is missing

    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "labels" / f"{ANNOTATOR}.jsonl"
    write_drafts(drafts, DRAFTS)
    given = _expected(DRAFTS[0], [], "every claim is in P1", [])
    given |= {"content_sha256": "f" * 64, "labelled_at": "2026-12-01T10:00:00Z"}
    labels.parent.mkdir()
    labels.write_text(json.dumps(given) + "\n", encoding="utf-8")
    banner, here = page.locator("#attention"), page.locator("#draft-attention")

    with running(drafts, labels, ANNOTATOR) as server:
        page.goto(server.url)
        expect(page.locator("#progress")).to_have_text("0 of 3 labelled")
        expect(banner).to_be_visible()
        expect(banner.locator("li")).to_have_text(
            f"{labels}:1: label for {DRAFTS[0].id!r} matches no draft: its content hash is not "
            "the case's: the case changed since, or the label was damaged"
        )
        expect(page.locator("#position")).to_contain_text(DRAFTS[0].id)
        expect(here).to_be_visible()
        expect(here).to_contain_text("Line 1 of your labels file is a label of this draft")

        page.keyboard.press("g")
        page.locator("#reason").fill("every claim is in P1")
        page.locator("#save").click()
        expect(page.locator("#progress")).to_have_text("1 of 3 labelled")
        expect(banner).to_be_hidden()
        expect(here).to_be_hidden()

    assert labels.read_text(encoding="utf-8").startswith(json.dumps(given) + "\n")
