"""The production task's sample list in `inspect view`, in headless Chromium: the judge's
verdict coloured, the claims it flagged, the category and the rider's question, as a reviewer
reads them; no gold, no outcome."""

from pathlib import Path

import pytest

from farejudge.testing.production_runs import judge_says, write_drafts
from tests.support.audit_runs import held_escalates, index_of, judge_period, judge_period_held
from tests.support.viewer import sample_list


@pytest.mark.browser
@pytest.mark.subprocess
def test_the_sample_list_shows_each_verdict_and_question(tmp_path: Path) -> None:
    drafts = write_drafts(tmp_path / "drafts.jsonl", 12)
    log = judge_period(tmp_path / "drafts.jsonl", tmp_path / "logs")
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect  # browser_page has skipped when it is missing

        expect(page.locator("[role=columnheader]").first).to_be_visible()
        body = page.locator("body")
        for header in ("CATEGORY", "JUDGE VERDICT", "CLAIMS FLAGGED", "P(UNGROUNDED)", "INPUT"):
            expect(body).to_contain_text(header, ignore_case=True)
        rows = page.evaluate(
            """() => {
                const headers = [...document.querySelectorAll('[role=columnheader]')]
                    .map(h => h.innerText.split('\\n')[0]);
                return [...document.querySelectorAll('[role=row]')]
                    .map(row => [...row.querySelectorAll('[role=gridcell]')])
                    .filter(cells => cells.length)
                    .map(cells => Object.fromEntries(
                        headers.map((h, i) => [h, cells[i].innerText])));
            }"""
        )
        numbers = index_of(drafts)
        by_id = {d.id: d for d in drafts}
        shown = {row["ID"]: row for row in rows}
        assert len(shown) == 12
        for draft_id, row in shown.items():
            said = judge_says(numbers[draft_id])
            assert row["JUDGE VERDICT"] == ("judge failure" if said == "failure" else said)
            assert row["INPUT"] == by_id[draft_id].question
        assert not [header for row in rows for header in row if "GOLD" in header.upper()]
        page.screenshot(path=str(tmp_path / "production_samples.png"))


@pytest.mark.browser
@pytest.mark.subprocess
def test_a_run_held_to_a_threshold_shows_what_goes_to_people(tmp_path: Path) -> None:
    drafts = write_drafts(tmp_path / "drafts.jsonl", 12)
    log = judge_period_held(tmp_path / "drafts.jsonl", tmp_path / "logs", threshold=0.9)
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect  # browser_page has skipped when it is missing

        expect(page.locator("[role=columnheader]").first).to_be_visible()
        expect(page.locator("body")).to_contain_text("DECIDED OR ESCALATED", ignore_case=True)
        marks = page.evaluate(
            """() => {
                const headers = [...document.querySelectorAll('[role=columnheader]')]
                    .map(h => h.innerText.split('\\n')[0].toUpperCase());
                const id = headers.indexOf('ID');
                const mark = headers.indexOf('DECIDED OR ESCALATED');
                return Object.fromEntries([...document.querySelectorAll('[role=row]')]
                    .map(row => [...row.querySelectorAll('[role=gridcell]')])
                    .filter(cells => cells.length)
                    .map(cells => [cells[id].innerText, cells[mark].innerText]));
            }"""
        )
        numbers = index_of(drafts)
        assert marks == {
            d.id: "escalated" if held_escalates(numbers[d.id]) else "decided" for d in drafts
        }
        page.screenshot(path=str(tmp_path / "production_held.png"))
