"""judge-matrix: every version, judge model and epoch as one eval set, reused on rerun."""

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model

from farejudge.comparison.cli import EXIT_OK
from farejudge.comparison.cli import run as compare
from farejudge.core.case_schema import Case
from farejudge.evals.dataset import load_cases
from farejudge.matrix.cli import EXIT_INPUT, run, run_matrix
from farejudge.testing.scripted_judge import scripted_judge
from farejudge.testing.synthetic_cases import write_cases as write_synthetic
from tests.support.fault_judge import CALLS, OUTAGE_OVER, Fault
from tests.support.scripted_cases import replies, write_cases

MODELS = ["mockllm/judge-a", "mockllm/judge-b"]


@pytest.mark.slow
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


def test_matrix_takes_the_base_url_as_an_option_not_a_model_argument(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # As a model argument it would reach get_model() beside base_url: a TypeError.
    with pytest.raises(SystemExit) as exit_:
        run(["--model", "openai-api/local/m", "-M", "base_url=http://127.0.0.1:8000/v1"])
    assert exit_.value.code == EXIT_INPUT
    assert "give the base URL as --model-base-url" in capsys.readouterr().err


def test_matrix_reports_a_model_argument_the_provider_refuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_API_KEY", "none")
    argv = ["--model", "openai-api/local/m", "--model-base-url", "http://127.0.0.1:9/v1"]
    code = run([*argv, "-M", "no_such_option=1", "--log-dir", str(tmp_path)])
    assert code == EXIT_INPUT
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("judge-matrix: error: --model openai-api/local/m: ")
    assert "no_such_option" in line
    assert not list(tmp_path.iterdir())


def test_matrix_reports_an_unknown_model_before_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["--model", "nosuch/model", "--log-dir", str(tmp_path)]) == EXIT_INPUT
    assert "--model nosuch/model:" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def faulty_matrix(
    cases_file: str, log_dir: str, outages: dict[str, Fault], outage_over: bool
) -> tuple[bool, dict[str, int]]:
    """judge-matrix on the faulty judge: whether it succeeded, and the calls made per case.

    Run in a process of its own: an eval set leaves Inspect's active model and its retry
    behaviour in place for later evals in the same process.
    """
    if outage_over:
        os.environ[OUTAGE_OVER] = "1"
    success = run_matrix(
        models=[get_model("faulty_judge/matrix", faults=outages)],
        log_dir=log_dir,
        versions=["v3"],
        task_args={"dataset": cases_file, "fail_on_error": 0.5},
        # As --max-retries does, over the task's bound: a real outage outlasts either.
        max_retries=1,
        display="none",
    )
    return success, dict(CALLS)


@pytest.mark.subprocess
def test_matrix_run_again_judges_exactly_the_errored_samples(tmp_path: Path) -> None:
    ids = write_synthetic(tmp_path / "cases.jsonl", 12)
    outages: dict[str, Fault] = {ids[0]: "server error", ids[5]: "connection dropped"}
    args = (str(tmp_path / "cases.jsonl"), str(tmp_path / "logs"), outages)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        # The outage outlasts the run and the retry judge-matrix makes at once: not a success.
        success, calls = pool.submit(faulty_matrix, *args, False).result()
    assert not success and set(calls) == set(ids)
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        success, calls = pool.submit(faulty_matrix, *args, True).result()
    assert success
    assert set(calls) == set(outages), "only the errored samples are judged again"
    assert compare([str(tmp_path / "logs"), "--out", str(tmp_path / "r"), "--quiet"]) == EXIT_OK


def test_matrix_refuses_a_log_folder_whose_cases_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases_file = write_cases(tmp_path / "cases.jsonl")
    cases = load_cases(cases_file)
    options = {"dataset": str(cases_file)}
    judge = scripted_judge(cases, replies({}))
    assert run_matrix([judge], log_dir=str(tmp_path / "logs"), task_args=options, display="none")
    text = cases_file.read_text(encoding="utf-8").replace("$1.25 per ride", "$1.35 per ride")
    cases_file.write_text(text, encoding="utf-8")

    code = run(
        [
            "--model",
            "mockllm/model",
            "--log-dir",
            str(tmp_path / "logs"),
            "-T",
            f"dataset={cases_file}",
        ]
    )

    assert code == EXIT_INPUT
    err = capsys.readouterr().err
    (line,) = err.strip().splitlines()
    assert line.startswith(f"judge-matrix: error: {tmp_path / 'logs'} holds 3 run(s) of other")
    assert "its cases differ from today's case files" in line and "give a new --log-dir" in line
