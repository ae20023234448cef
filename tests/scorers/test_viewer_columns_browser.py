"""`inspect view` in headless Chromium: the sample list as a reviewer sees it.

A metamorphic run shows each derived case's relation and parent as columns. A graded run shows
P(ungrounded) to 2 decimals, not the float noise of its arithmetic (0.030100000000000005), and
each rider's question on one line, however long or broken into lines (issue 26, finding 11). A
run held to a confidence threshold shows whether each sample was decided alone or escalated.
"""

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import DEFAULT_CASES
from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import task_file
from tests.support.graded_replies import LLAMA, output_of, split, with_top
from tests.support.logprob_judges import run_logprob_judge
from tests.support.metamorphic_runs import run
from tests.support.viewer import sample_list

if TYPE_CHECKING:
    from playwright.sync_api import Page

@pytest.mark.browser
@pytest.mark.subprocess
def test_sample_list_shows_relation_and_parent_columns(tmp_path: Path) -> None:
    log = run(tmp_path, blind_to=None)
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect  # browser_page has skipped when it is missing

        grid = page.locator("body")
        for header in ("Relation", "Derived from", "Outcome vs gold", "Rider's question"):
            expect(grid).to_contain_text(header)
        # Sorted by id, a gold case is followed by the cases derived from it.
        expect(grid).to_contain_text("conv-001~")
        expect(grid).to_contain_text("distractor_passage")


# Each case's P(ungrounded) as the judge's logprobs give it: normalising the two alternatives
# leaves float noise (0.0301 comes back as 0.030100000000000005).
P_UNGROUNDED = {"real-001": 0.779, "real-002": 0.0301, "real-003": 0.5, "real-004": 0.35}
LONG_QUESTION = (
    "I have a few questions:\n\n1. How much is a day pass on Lakeshore Metro for an adult "
    "rider who boards downtown?\n2. And for kids?\n\n- also for seniors over 65 with a card"
)


def graded_run(tmp_path: Path) -> EvalLog:
    """Four real-world cases, graded from logprobs; the first with a long, many-line question."""
    records = [
        json.loads(line)
        for line in (DEFAULT_CASES / "real-world.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ][:4]
    records[0]["question"] = LONG_QUESTION
    cases = tmp_path / "cases.jsonl"
    cases.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    by_question = {r["question"]: P_UNGROUNDED[r["id"]] for r in records}

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        shown = messages[-1].text
        (p,) = [p for question, p in by_question.items() if question in shown]
        top = [(" true", math.log(1 - p)), (" false", math.log(p))]
        cut = split(LLAMA, ' "', "ground", "ed", '":', " true", ",", ' "uns')
        output = output_of(LLAMA, with_top(cut, " true", math.log(1 - p), top))
        output.usage = ModelUsage(input_tokens=700, output_tokens=20, total_tokens=720)
        return output

    (log,) = eval(
        task_file(),
        task_args={"dataset": str(cases), "graded": "logprobs"},
        model=get_model("mockllm/model", custom_outputs=respond),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def grid(page: "Page") -> dict[str, dict[str, Any]]:
    """Each sample's row: column header → the cell's text, and the question cell's height
    and line height in pixels."""
    rows: dict[str, dict[str, Any]] = page.evaluate(
        """() => {
            const headers = [...document.querySelectorAll('[role=columnheader]')]
                .map(h => h.innerText.split('\\n')[0]);
            const at = headers.indexOf("RIDER'S QUESTION");
            const rows = {};
            for (const row of document.querySelectorAll('[role=row]')) {
                const cells = [...row.querySelectorAll('[role=gridcell]')];
                if (!cells.length) continue;
                const texts = Object.fromEntries(headers.map((h, i) => [h, cells[i].innerText]));
                const question = cells[at].firstElementChild || cells[at];
                texts.question_height = question.getBoundingClientRect().height;
                texts.line_height = parseFloat(getComputedStyle(question).lineHeight);
                rows[texts.ID] = texts;
            }
            return rows;
        }"""
    )
    return rows


def assert_as_a_reader_needs(rows: dict[str, dict[str, Any]]) -> None:
    assert set(rows) == set(P_UNGROUNDED)
    for case, row in rows.items():
        assert row["P(UNGROUNDED)"] == f"{P_UNGROUNDED[case]:.2f}".rstrip("0").rstrip("."), row
        # One line, whatever the question's length or line breaks.
        assert row["question_height"] <= 1.5 * row["line_height"], (case, row)
    assert rows["real-001"]["RIDER'S QUESTION"].startswith("I have a few questions: 1. How much")


@pytest.mark.browser
@pytest.mark.subprocess
def test_p_ungrounded_is_rounded_and_each_question_is_one_line(tmp_path: Path) -> None:
    log = graded_run(tmp_path)
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect

        expect(page.locator("[role=columnheader]").first).to_be_visible()
        expect(page.locator("body")).to_contain_text("real-004")
        page.screenshot(path=str(tmp_path / "sample_list.png"))
        assert_as_a_reader_needs(grid(page))
        # Rows of several lines, as the viewer's View menu offers: still one line each.
        page.get_by_text("View", exact=True).first.click()
        page.get_by_text("Multiline", exact=True).click()
        page.get_by_text("View", exact=True).first.click()
        page.screenshot(path=str(tmp_path / "sample_list_multiline.png"))
        assert_as_a_reader_needs(grid(page))


@pytest.mark.browser
@pytest.mark.subprocess
def test_a_sample_scoring_tab_shows_the_judge_reasoning_in_the_explanation(
    tmp_path: Path,
) -> None:
    # The score's metadata has the verdict as read, but the viewer shows it as a collapsed
    # "Object(3)": the reasoning a reviewer reads beside gold's is in the explanation.
    log = graded_run(tmp_path)
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect

        name = Path(log.location).name
        page.goto(page.url.split("#")[0] + f"#/logs/{name}/samples/sample/real-002/1/scoring")
        body = page.locator("body")
        expect(body).to_contain_text("Why gold says so: Ungrounded.")
        expect(body).to_contain_text("Judge's reasoning: P1 has it")
        expect(body).to_contain_text("Graded: P(ungrounded) = 0.03")
        page.screenshot(path=str(tmp_path / "scoring.png"))


def held_answer(case: Case) -> tuple[bool, float]:
    """Right on every case: 0.99 sure on the even ones, 0.6 on the odd."""
    sure = 0.99 if int(case.id.removeprefix("syn-")) % 2 == 0 else 0.6
    return case.label.grounded, 1 - sure if case.label.grounded else sure


@pytest.mark.browser
@pytest.mark.subprocess
def test_a_run_held_to_a_threshold_shows_decided_or_escalated(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    write_cases(cases, 6)
    log = run_logprob_judge(cases, held_answer, tmp_path / "logs", "mockllm/held", threshold=0.9)
    with sample_list(log, tmp_path / "logs") as page:
        from playwright.sync_api import expect

        expect(page.locator("[role=columnheader]").first).to_be_visible()
        expect(page.locator("body")).to_contain_text("syn-00005")
        page.screenshot(path=str(tmp_path / "held.png"))
        rows = grid(page)
        shown = {case: row["DECIDED OR ESCALATED"] for case, row in rows.items()}
        print(f"\n{shown}")
        assert shown == {f"syn-{i:05d}": "decided" if i % 2 == 0 else "escalated" for i in range(6)}
        name = Path(log.location).name
        page.goto(page.url.split("#")[0] + f"#/logs/{name}/samples/sample/syn-00001/1/scoring")
        expect(page.locator("body")).to_contain_text(
            "Escalated to a person: the judge's confidence in its verdict, 0.600, is below "
            "the threshold 0.9."
        )
