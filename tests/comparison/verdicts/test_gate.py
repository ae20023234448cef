"""The gate on hand-made runs: what fails it, and what an allow-list lets through."""

from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import GateResult, evaluate
from tests.support.frame_rows import row, runs

# v2 claims to fix p-2, v3 claims to fix p-3 (gold ungrounded: 1, judge: 1 is right).
PINNED = {"v1": [], "v2": ["p-2"], "v3": ["p-3"]}


def history(v3: dict[str, int] | None = None, v2_p2: int = 1) -> list[dict[str, object]]:
    """v1 gets both pinned cases wrong, v2 fixes p-2, v3 fixes p-3; x-1 right throughout.

    `v3` overrides the v3 judge's verdicts per case; a missing key keeps the case right.
    """
    judged_v3 = {"p-2": 1, "p-3": 1, "x-1": 1, **(v3 or {})}
    rows = [row("p-2", 1, 0), row("p-3", 1, 0), row("x-1", 1, 1)]
    rows += [row("p-2", 1, v2_p2, "v2"), row("p-3", 1, 0, "v2"), row("x-1", 1, 1, "v2")]
    rows += [row(case, 1, judged, "v3") for case, judged in judged_v3.items() if judged >= 0]
    return rows


def gate(
    rows: list[dict[str, object]],
    allow: set[str] | None = None,
    status: dict[tuple[str, str], str] | None = None,
    errored: dict[tuple[str, str], list[str]] | None = None,
    selected: dict[tuple[str, str], list[str]] | None = None,
    partial: bool = False,
) -> GateResult:
    report = build_report(
        runs(rows, PINNED, status, errored, selected), Resampling(50), partial=partial
    )
    return evaluate(report.verdicts, report.runs, allow or set())


def without(rows: list[dict[str, object]], version: str, case: str) -> list[dict[str, object]]:
    return [r for r in rows if not (r["version"] == version and r["case"] == case)]


def test_a_clean_history_passes() -> None:
    result = gate(history())
    assert result.passed and not result.allowed and not result.failures


def test_newest_version_breaking_a_case_fails() -> None:
    result = gate(history({"x-1": 0}))
    assert [(v.case, v.version) for v in result.violations] == [("x-1", "v3")]
    assert "v3 breaks x-1 with m: v2 was right (ungrounded), v3 is wrong (grounded)" in (
        result.violations[0].reason
    )


def test_pinned_case_wrong_on_the_version_that_claims_it_fails() -> None:
    result = gate(history(v2_p2=0))
    assert [v.reason for v in result.violations] == [
        "pinned case p-2 (fixed by v2) is wrong on v2 (judge: grounded) with m"
    ]


def test_pinned_case_unscored_in_the_newest_run_makes_it_incomplete() -> None:
    result = gate(history({"p-3": -1}), allow={"p-3"})
    assert result.status == "INCOMPLETE"
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: 1 of 3 cases not judged (0 errored, 1 never run), pinned p-3 "
        "among them; complete it with `inspect eval-retry v3-m.eval` or by running the same "
        "judge-matrix again"
    ]


def test_any_case_of_the_case_set_left_unjudged_makes_it_incomplete() -> None:
    """Not only pinned ones: a run that skipped x-1 says nothing about whether it broke it."""
    result = gate(history({"x-1": -1}), allow={"x-1"})
    assert result.status == "INCOMPLETE"
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: 1 of 3 cases not judged (0 errored, 1 never run); complete it "
        "with `inspect eval-retry v3-m.eval` or by running the same judge-matrix again"
    ]


def test_a_limited_run_is_incomplete_unless_compared_as_partial() -> None:
    rows = history({"p-3": -1})
    limited = {("v3", "m"): ["p-2", "x-1"]}
    result = gate(rows, allow={"p-3"}, selected=limited)
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: 1 of 3 cases not judged (0 errored, 1 never run), pinned p-3 "
        "among them; it ran with --limit 2: run it again without it, or compare the cases it "
        "holds with `judge-compare --partial`"
    ]
    assert result.partial == []

    result = gate(rows, selected=limited, partial=True)
    assert result.passed
    assert result.partial == [
        "v3 with m is compared on the 2 of its 3 cases it was given (--limit 2)"
    ]
    report = build_report(runs(rows, PINNED, selected=limited), Resampling(50), partial=True)
    (p3,) = [c for c in report.verdicts.pinned if (c.case, c.version) == ("p-3", "v3")]
    assert p3.left_out and not p3.missing

    # What the run was given it must have judged, partial or not.
    errored = {("v3", "m"): ["x-1"]}
    result = gate(without(rows, "v3", "x-1"), selected=limited, partial=True, errored=errored)
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: 1 of 2 cases not judged (1 errored, 0 never run); complete it "
        "with `inspect eval-retry v3-m.eval` or by running the same judge-matrix again"
    ]


def test_pinned_case_in_no_case_set_is_shown_and_fails_nothing() -> None:
    rows = [r for r in history() if r["case"] != "p-3"]
    result = gate(rows)
    assert result.passed
    report = build_report(runs(rows, PINNED), Resampling(50))
    p3 = [c for c in report.verdicts.pinned if c.case == "p-3"]
    assert p3 and all(c.right is None and not c.missing for c in p3)


def test_errored_samples_make_the_run_incomplete_never_a_broken_case() -> None:
    # v3 scored x-1 wrong would be a regression; with x-1 errored instead, v3 knows nothing.
    result = gate(without(history(), "v3", "x-1"), allow={"x-1"}, errored={("v3", "m"): ["x-1"]})
    assert result.status == "INCOMPLETE"
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: 1 of 3 cases not judged (1 errored, 0 never run); complete it "
        "with `inspect eval-retry v3-m.eval` or by running the same judge-matrix again"
    ]
    assert not [v for v in result.violations if "breaks" in v.reason]


def test_a_judge_failure_breaks_the_case_and_is_listed() -> None:
    rows = [*without(history(), "v3", "x-1"), row("x-1", 1, 0, "v3", failure=1)]
    result = gate(rows)
    assert [v.case for v in result.violations] == ["x-1"]
    assert "v3 is wrong (judge failure)" in result.violations[0].reason
    assert result.failures == [
        "v3 with m: 1 judge failure(s) in 3 case-epochs, each counted as a wrong verdict"
    ]


def test_allowed_cases_pass_and_unused_allows_are_named() -> None:
    result = gate(history({"x-1": 0, "p-3": 0}), allow={"x-1", "p-3", "zz-9"})
    assert result.passed
    # p-3 was wrong on v2 too, so on v3 it is a pinned failure, not a regression.
    assert sorted(v.case for v in result.allowed) == ["p-3", "x-1"]
    assert result.unused_allows == ["zz-9"]


def test_unfinished_or_missing_newest_run_fails_and_cannot_be_allowed() -> None:
    result = gate(history(), allow={"p-2", "p-3", "x-1"}, status={("v3", "m"): "error"})
    assert [v.reason for v in result.violations] == [
        "incomplete: v3 with m: the run did not finish (log status 'error'); complete it with "
        "`inspect eval-retry v3-m.eval` or by running the same judge-matrix again"
    ]
    other_model = [{**r, "model": "n"} for r in history() if r["version"] != "v3"]
    result = gate(history() + other_model)
    assert result.violations[0].reason == "incomplete: v3 has no run with n"
    # Its pinned cases are then missing from v3 as well, and said so.
    assert {v.reason for v in result.violations[1:]} == {
        f"incomplete: pinned case {case} (fixed by {fixed_by}) has no result in the v3 run "
        "with n; complete it by running the same judge-matrix again"
        for case, fixed_by in [("p-2", "v2"), ("p-3", "v3")]
    }
