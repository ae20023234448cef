"""judge-matrix on a full disk, or with a run whose log was not written: one line, exit 1
(issue 26, finding 1)."""

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalError, EvalLog, EvalResults, EvalSpec

from farejudge.matrix import cli as matrix
from farejudge.matrix.cli import EXIT_RUNS_FAILED, run
from tests.support.full_disk import full_folder
from tests.support.paths import FIXTURES

CASES = str(FIXTURES / "cases.jsonl")
ENOSPC = "OSError: [Errno 28] No space left on device"


def a_log(location: Path, status: str, completed: int = 3) -> EvalLog:
    """An eval set's log header for one run of the 3 fixture cases."""
    return EvalLog.model_construct(
        status=status,
        eval=EvalSpec.model_construct(task="farejudge/judge_groundedness", model="mockllm/model"),
        results=EvalResults(total_samples=3, completed_samples=completed),
        error=None
        if status == "success"
        else EvalError(
            message="OSError(28, 'No space left on device')",
            traceback=f"Traceback (most recent call last):\n{ENOSPC}",
            traceback_ansi="",
        ),
        location=str(location),
    )


def argv(log_dir: Path) -> list[str]:
    return [
        *["--model", "mockllm/model", "--versions", "v3", "-T", f"dataset={CASES}"],
        *["--log-dir", str(log_dir)],
    ]


def test_a_run_whose_log_was_not_written_fails_the_matrix_naming_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lost = tmp_path / "logs" / "run.eval"

    def eval_set(**_: Any) -> tuple[bool, list[EvalLog]]:
        return False, [a_log(lost, "error")]

    monkeypatch.setattr(matrix, "eval_set", eval_set)
    assert run(argv(tmp_path / "logs")) == EXIT_RUNS_FAILED
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        "judge-matrix: error: farejudge/judge_groundedness (mockllm/model): the log could not be "
        f"written in {lost.parent}: {ENOSPC}; run.eval cannot be read back"
    )


def test_a_retry_that_stopped_is_no_success(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The run finished with an errored sample; its retry by judge-matrix stopped (the outage
    # went on): the errored log holds no errored sample that judge-matrix counted.
    log = tmp_path / "logs" / "run.eval"
    monkeypatch.setattr(matrix, "eval_set", lambda **_: (True, [a_log(log, "success", 2)]))
    monkeypatch.setattr(matrix, "eval_retry", lambda *_, **__: [a_log(log, "error")])
    # (Both logs are taken as written: this is the retry's status alone.)
    monkeypatch.setattr(matrix, "unwritten", lambda _: None, raising=False)
    assert run(argv(tmp_path / "logs")) == EXIT_RUNS_FAILED
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"compare: judge-compare {tmp_path / 'logs'}"
    )


@pytest.mark.slow
def test_judge_matrix_on_a_full_disk_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with full_folder(tmp_path / "disk") as disk:
        code = run(argv(disk / "matrix"))
    assert code == EXIT_RUNS_FAILED
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line == (
        f"judge-matrix: error: cannot write in {disk / 'matrix'}: "
        "[Errno 28] No space left on device"
    )
