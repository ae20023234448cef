"""The panel's majority on hand-made rows: votes, ties as judge failures, the panel's graded
score, the cases it shares, and which models make a panel."""

import math

import pytest

from farejudge.comparison.panel.majority import FAILURE, PanelError, majority, vote
from farejudge.comparison.report.build import build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import wilson
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.shared.document import markdown
from tests.support.frame_rows import row, runs

G, U = "grounded", "ungrounded"


@pytest.mark.parametrize(
    ("kinds", "expected"),
    [
        ({G: 3}, G),
        ({G: 2, U: 1}, G),
        ({U: 2, FAILURE: 1}, U),
        ({G: 1, U: 1}, FAILURE),
        ({G: 1, FAILURE: 1}, FAILURE),
        ({FAILURE: 2, G: 1}, FAILURE),
    ],
)
def test_a_member_votes_its_most_common_verdict_and_an_even_split_is_none(
    kinds: dict[str, int], expected: str
) -> None:
    assert vote(kinds) == expected


@pytest.mark.parametrize(
    ("votes", "expected"),
    [
        ([G, G, U], (G, False)),
        ([U, U, FAILURE], (U, False)),
        ([G, U, FAILURE], (FAILURE, True)),
        ([G, U], (FAILURE, True)),
        ([G, G, U, FAILURE], (FAILURE, True)),
        ([FAILURE, FAILURE, G], (FAILURE, False)),
        ([U, U, U, G, G], (U, False)),
    ],
)
def test_the_panel_takes_a_verdict_more_than_half_gave_else_ties(
    votes: list[str], expected: tuple[str, bool]
) -> None:
    assert majority(votes) == expected


def three_judges(extra: list[dict[str, object]] | None = None) -> list[dict[str, object]]:
    """Cases x-0..x-5: judge a is wrong on x-0 and x-3, b on x-1 and x-4, c on x-2 and x-5."""
    rows = [
        row(f"x-{k}", k % 2, 1 - k % 2 if k % 3 == i else k % 2, version="v3", model=m)
        for i, m in enumerate("abc")
        for k in range(6)
    ]
    return rows + (extra or [])


def test_a_tie_is_a_judge_failure_of_the_panel_and_the_report_counts_it() -> None:
    # On t-0 (gold ungrounded) a is right, b wrong, c gave no verdict: no majority.
    tie = [
        row("t-0", 1, 1, version="v3", model="a"),
        row("t-0", 1, 0, version="v3", model="b"),
        row("t-0", 1, 0, version="v3", model="c", failure=1),
    ]
    report = build_report(runs(three_judges(tie)), Resampling(100))
    (panel,) = report.panel.panels
    tied = next(c for c in panel.cases if c.case == "t-0")
    assert (tied.verdict, tied.tie, tied.right) == (FAILURE, True, False)
    assert (panel.failures, panel.ties) == (1, 1)
    assert panel.accuracy == wilson(6, 7)
    assert panel.balanced_accuracy.estimate == 1.0, "a judge failure is in no confusion cell"
    assert next(f for f in panel.figures if f.model == "c").failures == 1
    text = markdown.render(sections(report, evaluate(report.verdicts, report.runs, set())))
    assert "| panel (majority) | 0.86 [0.49, 0.97] | 1.00 [1.00, 1.00] | 1 (ties: 1) |" in text


def test_the_panel_graded_score_is_the_mean_of_the_members_that_have_one() -> None:
    rows = [
        row("p-0", 1, 1, version="v3", model="a", p_ungrounded=0.9, graded_source="logprobs"),
        row("p-0", 1, 1, version="v3", model="b", p_ungrounded=0.6, graded_source="logprobs"),
        row("p-0", 1, 1, version="v3", model="c"),
        row("p-1", 0, 0, version="v3", model="a"),
        row("p-1", 0, 0, version="v3", model="b"),
        row("p-1", 0, 0, version="v3", model="c"),
    ]
    (panel,) = build_report(runs(rows), Resampling(50)).panel.panels
    scores = {c.case: c.p_ungrounded for c in panel.cases}
    assert scores["p-0"] == pytest.approx(0.75)
    assert math.isnan(scores["p-1"])
    assert panel.graded == 1


def test_only_cases_every_member_judged_with_the_same_content_are_the_panels() -> None:
    changed = {**row("x-0", 0, 0, version="v3", model="d"), "case_hash": "edited"}
    rows = three_judges([row(f"x-{k}", k % 2, k % 2, version="v3", model="d") for k in range(1, 5)])
    report = build_report(runs([*rows, changed]), Resampling(50))
    (panel,) = report.panel.panels
    assert panel.members == ["a", "b", "c", "d"]
    assert [c.case for c in panel.cases] == ["x-1", "x-2", "x-3", "x-4"]
    assert panel.not_shared == ["x-0", "x-5"]


def test_two_models_get_no_panel_unless_asked_for() -> None:
    rows = [r for r in three_judges() if r["model"] != "c"]
    assert build_report(runs(rows), Resampling(50)).panel.panels == []
    (panel,) = build_report(runs(rows), Resampling(50), panel=["a", "b"]).panel.panels
    # Where the two members disagree the panel has no majority.
    assert panel.ties == 4


def test_a_panel_model_with_no_run_is_refused() -> None:
    with pytest.raises(PanelError, match=r"^--panel nope: no run with that model"):
        build_report(runs(three_judges()), Resampling(50), panel=["a", "nope"])
