"""judge-matrix: every version, judge model and epoch as one eval set, reused on rerun."""

from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from comparison.cli import EXIT_OK
from comparison.cli import run as compare
from comparison.matrix import EXIT_INPUT, run, run_matrix
from evals.case_schema import Case
from evals.dataset import load_cases
from tests.judge_runs import replies, write_cases
from tests.scripted_judge import scripted_judge

MODELS = ["mockllm/judge-a", "mockllm/judge-b"]


def test_matrix_runs_every_version_and_model_then_reuses_them(tmp_path: Path) -> None:
    cases_file = write_cases(tmp_path / "cases.jsonl")
    cases = load_cases(cases_file)
    calls: list[str] = []

    def counting(case: Case) -> str:
        calls.append(case.id)
        return replies({})(case)

    def matrix() -> bool:
        return run_matrix(
            models=[scripted_judge(cases, counting, name=m) for m in MODELS],
            epochs=2,
            log_dir=str(tmp_path / "logs"),
            task_args={"dataset": str(cases_file)},
            display="none",
        )

    assert matrix()
    logs = [
        read_eval_log(info, header_only=True) for info in list_eval_logs(str(tmp_path / "logs"))
    ]
    runs = {
        (log.eval.metadata["prompt_version"], log.eval.model) for log in logs if log.eval.metadata
    }
    assert runs == {(v, m) for v in ["v1", "v2", "v3"] for m in MODELS}
    assert all(log.eval.config.epochs == 2 for log in logs)
    assert len(calls) == 3 * 2 * 2 * len(cases)

    calls.clear()
    assert matrix()
    assert calls == [], "a second run with the same options must reuse the finished logs"
    assert len(list_eval_logs(str(tmp_path / "logs"))) == len(logs)

    out = tmp_path / "report"
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet", "--resamples", "50"]) == (
        EXIT_OK
    )
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "Judge models: mockllm/judge-a, mockllm/judge-b" in md
    assert "## Stability across epochs" in md


@pytest.mark.parametrize(
    "argv",
    [
        ["--model", "mockllm/model", "-T", "prompt_version=v2"],
        ["--model", "mockllm/model", "-T", "dataset"],
        ["--model", ","],
    ],
)
def test_matrix_rejects_bad_options(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(argv)
    assert exit_.value.code == EXIT_INPUT


def test_matrix_rejects_unknown_versions(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["--model", "mockllm/model", "--versions", "v1,v9"]) == EXIT_INPUT
    assert "v9: not in the manifest" in capsys.readouterr().err


def test_matrix_reports_a_bad_task_option(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(["--model", "mockllm/model", "--log-dir", str(tmp_path), "-T", "datset=x"])
    assert code == EXIT_INPUT
    assert "-T datset: not an option of judge_groundedness" in capsys.readouterr().err


def test_matrix_reports_an_unknown_model_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["--model", "nosuch/model", "--log-dir", str(tmp_path)]) == EXIT_INPUT
    assert "--model nosuch/model:" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
