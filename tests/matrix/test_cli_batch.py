"""Judge calls through OpenAI's Batch API, against a stand-in (support/standins/openai_batch.py).

judge-matrix --batch and inspect eval --batch send every judge call in batches; a batch that
fails errors its samples (an outage, judged again by the next run), never scores them as the
judge's failures. judge-matrix refuses --batch with the verdict schema, and the last test shows
why: a request the API refuses inside a batch fails the whole batch, unread.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import BatchConfig, get_model

from farejudge.matrix.cli import EXIT_INPUT, EXIT_OK, EXIT_RUNS_FAILED, run, run_matrix
from tests.support.cli import inspect_eval
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.scripted_cases import write_cases
from tests.support.standins.openai_batch import OpenAIBatchPlatform, batch_platform

MODEL = "openai/gpt-4o-mini"
# Inspect polls every 15 s by default, and waits as long before it sends a short batch.
QUICK = "size: 100\nsend_delay: 0.2\ntick: 0.2\n"
ENV = OFFLINE_OPENAI


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    config = tmp_path / "batch.yaml"
    config.write_text(QUICK, encoding="utf-8")
    return config


@pytest.fixture
def failing() -> Iterator[tuple[str, type[OpenAIBatchPlatform]]]:
    handler = batch_platform(fail_batches=True)
    with serving(handler) as url:
        yield url, handler


@pytest.fixture
def working() -> Iterator[tuple[str, type[OpenAIBatchPlatform]]]:
    handler = batch_platform()
    with serving(handler) as url:
        yield url, handler


def logs(log_dir: Path) -> list[EvalLog]:
    return [read_eval_log(info) for info in list_eval_logs(str(log_dir))]


def matrix(url: str, cases: Path, log_dir: Path, config: Path) -> int:
    return run(
        [
            *["--model", MODEL, "--model-base-url", url, "--versions", "v1,v2"],
            *["--log-dir", str(log_dir), "-T", f"dataset={cases}", "--batch", str(config)],
        ]
    )


@pytest.mark.slow
def test_matrix_batch_sends_every_judge_call_in_a_batch(
    tmp_path: Path, offline: Path, working: tuple[str, type[OpenAIBatchPlatform]]
) -> None:
    url, handler = working
    cases = write_cases(tmp_path / "cases.jsonl")
    assert matrix(url, cases, tmp_path / "logs", offline) == EXIT_OK
    runs = logs(tmp_path / "logs")
    samples = [s for log in runs for s in log.samples or []]
    assert len(handler.batched) == len(samples) == 2 * len(cases.read_text().splitlines())
    assert not any(path == "/v1/chat/completions" for path, _ in handler.requests)
    assert all(s.error is None and s.scores for s in samples)


@pytest.mark.slow
def test_a_failed_batch_errors_its_samples_as_an_outage(
    tmp_path: Path, offline: Path, failing: tuple[str, type[OpenAIBatchPlatform]]
) -> None:
    url, _ = failing
    cases = write_cases(tmp_path / "cases.jsonl")
    assert matrix(url, cases, tmp_path / "logs", offline) == EXIT_RUNS_FAILED
    samples = [s for log in logs(tmp_path / "logs") for s in log.samples or []]
    errors = [s.error.message for s in samples if s.error]
    # Errored, not scored: an outage is not a judge failure. (Samples after the run stopped
    # on fail_on_error are cancelled rather than failed.)
    assert not any(s.scores for s in samples)
    assert errors and any("judge unreachable" in e and "Batch rejected" in e for e in errors)


def test_matrix_refuses_batch_with_the_verdict_schema(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        [
            *["--model", "mockllm/model", "--log-dir", str(tmp_path / "logs")],
            *["--batch", "-T", "constrained=true"],
        ]
    )
    assert code == EXIT_INPUT
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("judge-matrix: error: --batch with -T constrained=true: ")
    assert "could not be told from an outage" in line
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize("value", ["lots", "batch.yaml"])
def test_a_bad_batch_option_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(["--model", "mockllm/model", "--batch", value])
    assert exit_.value.code == EXIT_INPUT
    assert f"argument --batch: {value!r} is neither a batch size nor a file" in (
        capsys.readouterr().err
    )


@pytest.mark.slow
def test_why_batch_is_refused_with_the_schema(
    tmp_path: Path, offline: Path, working: tuple[str, type[OpenAIBatchPlatform]]
) -> None:
    """o1-mini refuses the schema; in a batch its 400 fails the batch as an unreadable result.

    Sent directly, judge-matrix would stop with "rejected the verdict schema"
    (tests/evals/test_openai_responses.py). If Inspect's batcher learns to read a refused request,
    this fails, and judge-matrix can lift its refusal.
    """
    url, _ = working
    cases = write_cases(tmp_path / "cases.jsonl")
    success = run_matrix(
        [get_model("openai/o1-mini", base_url=url)],
        log_dir=str(tmp_path / "logs"),
        versions=["v3"],
        task_args={"dataset": str(cases), "constrained": True},
        display="none",
        batch=BatchConfig(size=100, send_delay=0.2, tick=0.2),
    )
    assert not success
    errors = [
        s.error.message for log in logs(tmp_path / "logs") for s in log.samples or [] if s.error
    ]
    assert any("ValidationError" in e and "judge unreachable" in e for e in errors)
    assert not any("rejected the verdict schema" in e for e in errors)


@pytest.mark.subprocess
def test_inspect_eval_batch_works_with_the_task(
    tmp_path: Path, offline: Path, working: tuple[str, type[OpenAIBatchPlatform]]
) -> None:
    url, handler = working
    (ran,) = inspect_eval(
        [
            [
                *["--model", MODEL, "--batch", str(offline), "--limit", "2"],
                *["-T", "dataset=tests/fixtures/cases.jsonl", "--log-dir", str(tmp_path / "l")],
                *["--display", "none"],
            ]
        ],
        env={**ENV, "OPENAI_BASE_URL": url},
    )
    assert ran.returncode == 0, ran.lines
    (log,) = logs(tmp_path / "l")
    assert log.status == "success" and len(handler.batched) == 2
    assert [path for path, _ in handler.requests] == ["/v1/files", "/v1/batches"]
