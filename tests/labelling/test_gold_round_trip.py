"""The gold-set round trip, as the README walks it: the sample log → drafts → two annotators
in the browser → agreement → one disagreement settled by a third → promotion → the eval."""

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from inspect_ai import eval

from farejudge.core.drafts import read_drafts
from farejudge.evals.dataset import load_cases
from farejudge.labelling import agreement_report, intake, promote
from farejudge.labelling.label_file import read_labels
from farejudge.testing.scripted_judge import echo_gold, scripted_judge
from tests.support.browser import browser_page, running, select_range
from tests.support.cli import task_file
from tests.support.labels import BOB_SHORTER, KEY
from tests.support.paths import FIXTURES

if TYPE_CHECKING:
    from playwright.sync_api import Page


def label_in_browser(
    page: "Page", drafts: Path, labels: Path, who: str, spans: dict[int, str]
) -> None:
    """`who` labels every draft on the page: the given span, if any, highlighted and added,
    else grounded; a reason; Enter."""
    from playwright.sync_api import expect  # the page fixture has skipped when it is missing

    with running(drafts, labels, who) as server:
        page.goto(server.url)
        for index, draft in enumerate(read_drafts(drafts)):
            expect(page.locator("#position")).to_contain_text(draft.id)
            if index in spans:
                select_range(page, spans[index])
                page.keyboard.press("a")
            else:
                page.keyboard.press("g")
            page.locator("#reason").fill(
                f"{who}: {'not in the passages' if index in spans else 'all in P1'}"
            )
            page.keyboard.press("Enter")
            expect(page.locator("#progress")).to_have_text(f"{index + 1} of 10 labelled")


@pytest.mark.browser
def test_log_to_gold_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "labels"
    log, mapping = FIXTURES / "assistant_log.jsonl", FIXTURES / "assistant_log_mapping.toml"
    assert intake.main([str(log), "--mapping", str(mapping), "--out", str(drafts)]) == 0
    assert len(read_drafts(drafts)) == 10

    with browser_page() as page:
        from playwright.sync_api import expect  # browser_page has skipped when it is missing

        # Two annotators, blind to each other: bob drops "You'll" from the span of draft 1 and
        # calls the hedged claim of draft 7 grounded.
        label_in_browser(page, drafts, labels / "alice.jsonl", "alice", KEY)
        bob = {**KEY, 1: BOB_SHORTER}
        del bob[7]
        label_in_browser(page, drafts, labels / "bob.jsonl", "bob", bob)
        assert (
            len(read_labels(labels / "alice.jsonl")) == len(read_labels(labels / "bob.jsonl")) == 10
        )

        out = tmp_path / "agreement"
        args = [str(labels / "alice.jsonl"), str(labels / "bob.jsonl"), "--drafts", str(drafts)]
        assert agreement_report.main([*args, "--out", str(out)]) == 0
        record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
        assert record["verdicts"]["kappa"] == pytest.approx(0.8)
        disagreed = [c["id"] for c in record["cases"] if c["status"] == "disagreed"]
        ids = [d.id for d in read_drafts(drafts)]
        assert disagreed == [ids[1], ids[7]]

        # Carol settles the verdict disagreement (7): ungrounded, alice's span.
        with running(drafts, labels / "carol.jsonl", "carol") as server:
            page.goto(server.url)
            expect(page.locator("#position")).to_contain_text("Draft 1 of 10")
            for shown in range(2, 9):  # one draft at a time: each is fetched before the next key
                page.keyboard.press("n")
                expect(page.locator("#position")).to_contain_text(f"Draft {shown} of 10")
            expect(page.locator("#position")).to_contain_text(ids[7])
            select_range(page, KEY[7])
            page.keyboard.press("a")
            page.locator("#reason").fill("a hedged fact is still a claim, and no passage states it")
            page.keyboard.press("Enter")
            expect(page.locator("#progress")).to_have_text("1 of 10 labelled")

    into = tmp_path / "gold" / "cases"
    assert (
        promote.main(
            [
                "--drafts",
                str(drafts),
                "--agreement",
                str(out / "agreement.json"),
                "--adjudication",
                str(labels / "carol.jsonl"),
                "--into",
                str(into),
                "--release",
                "r1",
            ]
        )
        == 0
    )
    assert f"unsettled disagreements: {ids[1]}" in capsys.readouterr().out
    cases = {c.id: c for c in load_cases(into)}
    assert set(cases) == set(ids) - {ids[1]}
    assert cases[ids[7]].label.unsupported_claims == [KEY[7]]
    assert "adjudicated by carol" in cases[ids[7]].rationale
    for i, case_id in enumerate(ids):
        if case_id in cases:
            assert cases[case_id].label.unsupported_claims == ([KEY[i]] if i in KEY else [])
    assert (tmp_path / "gold" / "agreement" / "r1.json").exists()

    (run,) = eval(
        task_file(),
        task_args={"dataset": str(into)},
        model=scripted_judge(list(cases.values()), echo_gold),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert run.status == "success" and run.samples is not None and len(run.samples) == 9
