"""judge-matrix --panel: it runs the panel's models and names the judge-compare command, and
refuses a panel of one model or beside --model."""

import pytest

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK
from farejudge.matrix import cli as matrix

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]


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
