"""The panel end to end: three scripted judges, each wrong on a different third of 18 cases,
make a majority right on every case; the report says it beats every member, with the p-value;
a `--panel` model with no run is one line."""

from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK, run
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import mcnemar_exact
from farejudge.testing.synthetic_cases import write_cases
from tests.support.scripted_cases import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]


CASES = 18


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
    report = build_report(load_runs([str(logs)]), Resampling(200))
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
