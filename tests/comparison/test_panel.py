"""Judge panels: the majority rule on hand-made rows, then three scripted judges end to end.

End to end, each of three mockllm judges is wrong on a different third of 18 cases, so the
majority is right on every case and beats each member by six discordant cases to none.
"""

import math
from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK, run
from farejudge.comparison.figures import build_report
from farejudge.comparison.gate import evaluate
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.panel.majority import FAILURE, PanelError, majority, vote
from farejudge.comparison.report import markdown
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.intervals import mcnemar_exact, wilson
from farejudge.matrix import cli as matrix
from farejudge.testing.synthetic_cases import write_cases
from tests.support.frame_rows import row, runs
from tests.support.scripted_cases import run_version

G, U = "grounded", "ungrounded"
MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
CASES = 18


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
    report = build_report(runs(three_judges(tie)), resamples=100)
    (panel,) = report.panel.panels
    tied = next(c for c in panel.cases if c.case == "t-0")
    assert (tied.verdict, tied.tie, tied.right) == (FAILURE, True, False)
    assert (panel.failures, panel.ties) == (1, 1)
    assert panel.accuracy == wilson(6, 7)
    assert panel.balanced_accuracy.estimate == 1.0, "a judge failure is in no confusion cell"
    assert next(f for f in panel.figures if f.model == "c").failures == 1
    text = markdown.render(sections(report, evaluate(report, set())))
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
    (panel,) = build_report(runs(rows), resamples=50).panel.panels
    scores = {c.case: c.p_ungrounded for c in panel.cases}
    assert scores["p-0"] == pytest.approx(0.75)
    assert math.isnan(scores["p-1"])
    assert panel.graded == 1


def test_only_cases_every_member_judged_with_the_same_content_are_the_panels() -> None:
    changed = {**row("x-0", 0, 0, version="v3", model="d"), "case_hash": "edited"}
    rows = three_judges([row(f"x-{k}", k % 2, k % 2, version="v3", model="d") for k in range(1, 5)])
    report = build_report(runs([*rows, changed]), resamples=50)
    (panel,) = report.panel.panels
    assert panel.members == ["a", "b", "c", "d"]
    assert [c.case for c in panel.cases] == ["x-1", "x-2", "x-3", "x-4"]
    assert panel.not_shared == ["x-0", "x-5"]


def test_two_models_get_no_panel_unless_asked_for() -> None:
    rows = [r for r in three_judges() if r["model"] != "c"]
    assert build_report(runs(rows), resamples=50).panel.panels == []
    (panel,) = build_report(runs(rows), resamples=50, panel=["a", "b"]).panel.panels
    # Where the two members disagree the panel has no majority.
    assert panel.ties == 4


def test_a_panel_model_with_no_run_is_refused() -> None:
    with pytest.raises(PanelError, match=r"^--panel nope: no run with that model"):
        build_report(runs(three_judges()), resamples=50, panel=["a", "nope"])


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One v3 run per judge; judge i is wrong on the cases whose index is i modulo 3."""
    root = tmp_path_factory.mktemp("panel")
    cases_file = root / "cases.jsonl"
    ids = write_cases(cases_file, CASES)
    for i, model in enumerate(MODELS):
        script = {case: "wrong" for k, case in enumerate(ids) if k % 3 == i}
        run_version("v3", script, cases_file, root / "logs", model=model)
    return root / "logs"


@pytest.mark.slow
def test_a_panel_of_judges_wrong_on_different_thirds_is_right_everywhere(logs: Path) -> None:
    report = build_report(load_runs([str(logs)]), resamples=200)
    (panel,) = report.panel.panels
    assert panel.members == MODELS
    assert len(panel.cases) == CASES
    assert all(c.right and not c.tie for c in panel.cases)
    assert panel.accuracy.estimate == 1.0
    third = CASES // 3
    for figures in panel.figures:
        assert figures.accuracy.estimate == pytest.approx(2 / 3)
        assert (figures.panel_only, figures.member_only) == (third, 0)
        assert figures.p_value == mcnemar_exact(third, 0)
    assert panel.beats_best
    assert report.panel.suspects == [], "no case has every judge wrong"


@pytest.mark.slow
def test_the_report_says_the_panel_beats_every_member_with_its_p_value(
    logs: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    argv = [str(logs), "--out", str(out), "--quiet", "--resamples", "100"]
    assert run([*argv, "--panel", ",".join(MODELS)]) == EXIT_OK
    text = (out / "report.md").read_text(encoding="utf-8")
    p = mcnemar_exact(CASES // 3, 0)
    assert p < 0.05
    assert (
        "- v3: the panel beats every member (the best is mockllm/judge-a: accuracy 1.00 "
        f"against 0.67; exact McNemar p = {p:.3g} on {CASES} cases: 6 right only for the panel, "
        "0 only for mockllm/judge-a; significant at 0.05)." in text
    )
    assert "(chosen with --panel)" in text


@pytest.mark.slow
def test_panel_with_an_unknown_model_is_one_line_exit_2(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(logs), "--out", str(tmp_path), "--quiet", "--panel", f"{MODELS[0]},mockllm/nope"]
    assert run(argv) == EXIT_INPUT
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"judge-compare: error: --panel mockllm/nope: no run with that model in these logs "
        f"(models: {', '.join(MODELS)})"
    ]


def test_judge_matrix_panel_runs_those_models_and_names_the_compare_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ran: list[list[str]] = []

    def fake_run(models: list[str], **options: object) -> bool:
        ran.append(models)
        return options["versions"] is None

    monkeypatch.setattr(matrix, "_model", lambda name, *_: name)
    monkeypatch.setattr(matrix, "run_matrix", fake_run)
    assert matrix.run(["--panel", ",".join(MODELS), "--log-dir", "logs/p"]) == EXIT_OK
    assert ran == [MODELS], "every version, with the panel's models"
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"compare: judge-compare logs/p --panel {','.join(MODELS)}"
    )
    assert matrix.run(["--model", MODELS[0], "--log-dir", "logs/p"]) == EXIT_OK
    assert capsys.readouterr().err.splitlines()[-1] == "compare: judge-compare logs/p"


@pytest.mark.parametrize(
    "argv",
    [["--panel", "m1"], ["--panel", "m1,m1"], ["--model", "m1", "--panel", "m1,m2"], []],
)
def test_judge_matrix_refuses_a_panel_of_one_or_both_options(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        matrix.run(argv)
    assert exit_.value.code == EXIT_INPUT
