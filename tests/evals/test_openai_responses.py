"""OpenAI's two APIs as the task meets them, through Inspect's provider and the real `inspect eval`.

Inspect sends gpt-5, o-series and codex models to the Responses API (`/v1/responses`) and the
others to Chat Completions. The refused runs are the command line a user types (what it prints
and its exit status are tested); the judged ones run the same task by `eval()`. Each runs
against a stand-in for api.openai.com on loopback (`tests/support/standins/openai_platform.py`)
that refuses what OpenAI refuses: a `max_output_tokens` under 16, and under `strict: true` a
schema keyword strict mode does not document (`maxLength` among them).
"""

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

from tests.support.cli import Run, task_file
from tests.support.json_server import serving
from tests.support.local_server import TimedRun, run_commands
from tests.support.standins.openai_platform import MIN_OUTPUT_TOKENS, OpenAIPlatform, platform

pytestmark = pytest.mark.subprocess

FIXTURES = "tests/fixtures/cases.jsonl"
SIZE = ["--limit", "2", "-T", f"dataset={FIXTURES}"]
COMMAND = (
    "OPENAI_BASE_URL={url} OPENAI_API_KEY=sk-dummy-standin "
    "inspect eval evals/judge_groundedness.py --model openai/{model}"
)
# name: (model, -T options). What these runs are for is in their logs and in the requests
# the stand-in received, so they run in-process, by `eval()`.
RUNS: dict[str, tuple[str, dict[str, bool]]] = {
    "responses_schema": ("gpt-5-mini", {"constrained": True}),
    "responses_off": ("gpt-5-mini", {"constrained": False}),
    "chat_schema": ("gpt-4o-mini", {"constrained": True}),
}
# name: (model, options). These are refused, and what the command line prints and its exit
# status are what is tested: the real `inspect eval`.
CLI_RUNS: dict[str, tuple[str, list[str]]] = {
    "responses_json_object": ("gpt-5-mini", ["-T", "constrained=json_object"]),
    "responses_refused": ("o1-mini", ["-T", "constrained=true"]),
}
ENV = {
    # Rich hard-wraps an error at the terminal width (80 columns in a pipe).
    "COLUMNS": "400",
    # The task is probed for the model it is created for unless that is INSPECT_EVAL_MODEL's.
    "INSPECT_EVAL_MODEL": "",
    # Nothing leaves the machine: any other address goes to a proxy that is not there.
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}


class Judged:
    def __init__(self, server: type[OpenAIPlatform], log_dir: Path) -> None:
        self.requests = server.requests
        self.log_dir = log_dir

    def log(self) -> EvalLog:
        (path,) = self.log_dir.glob("*.eval")
        return read_eval_log(path)

    def judged(self) -> EvalLog:
        log = self.log()
        assert log.status == "success", log.error
        assert log.samples is not None and len(log.samples) == 2
        for sample in log.samples:
            assert sample.error is None, sample.error.message
        return log


class Ran(Judged):
    def __init__(self, timed: TimedRun, server: type[OpenAIPlatform], log_dir: Path) -> None:
        super().__init__(server, log_dir)
        self.run = timed.run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Judged]:
    """Each run in turn, by `eval()`, against a stand-in of its own (its requests are its own)."""
    root = tmp_path_factory.mktemp("openai_evals")
    done = {}
    for name, (model, options) in RUNS.items():
        server = platform()
        with serving(server) as url, pytest.MonkeyPatch.context() as env:
            for variable, value in {**ENV, "OPENAI_BASE_URL": url}.items():
                env.setenv(variable, value)
            env.setenv("OPENAI_API_KEY", "sk-dummy-standin")
            eval(
                task_file(),
                task_args={"dataset": FIXTURES, **options},
                model=f"openai/{model}",
                # The model of another run, memoized, would ask that run's stand-in.
                model_base_url=url,
                limit=2,
                log_dir=str(root / name),
                display="none",
            )
        done[name] = Judged(server, root / name)
    return done


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Ran]]:
    """Every command line at once, each against a stand-in of its own."""
    root = tmp_path_factory.mktemp("openai_runs")
    with ExitStack() as stack:
        servers = {name: platform() for name in CLI_RUNS}
        urls = {name: stack.enter_context(serving(servers[name])) for name in CLI_RUNS}
        commands = [
            (
                COMMAND.format(url=urls[name], model=model),
                [*SIZE, "--log-dir", str(root / name), *options],
            )
            for name, (model, options) in CLI_RUNS.items()
        ]
        done = run_commands(commands, ENV)
        yield {
            name: Ran(timed, servers[name], root / name)
            for name, timed in zip(CLI_RUNS, done, strict=True)
        }


def said(run: Run) -> list[str]:
    """What the run printed, less the banner Inspect prints first when hooks are enabled."""
    lines = run.lines
    if lines and lines[0].startswith("inspect_ai v"):
        lines = lines[1:]
        while lines and lines[0].startswith(("- ", "  ")):
            lines = lines[1:]
    return lines


def model_requests(log: EvalLog) -> list[dict[str, Any]]:
    """Per sample, the request body Inspect's provider sent, from the log's call record."""
    assert log.samples is not None
    found = []
    for sample in log.samples:
        (event,) = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert event.call is not None
        found.append(event.call.request)
    return found


def test_the_schema_probe_is_taken_by_the_responses_api(runs: dict[str, Judged]) -> None:
    ran = runs["responses_schema"]
    ran.judged()
    sized = [body["max_output_tokens"] for _, body in ran.requests if "max_output_tokens" in body]
    # The probe is the one request with a token limit (the samples have none): big enough.
    assert sized and min(sized) >= MIN_OUTPUT_TOKENS, sized
    assert all(path == "/v1/responses" for path, _ in ran.requests)


def test_schema_mode_is_what_the_request_carried(runs: dict[str, Judged]) -> None:
    for name, kind in (("responses_schema", "json_schema"), ("responses_off", None)):
        log = runs[name].judged()
        requests = model_requests(log)
        assert log.samples is not None and len(requests) == len(log.samples)
        for request in requests:
            fmt = (request.get("text") or {}).get("format")
            assert "response_format" not in request and "extra_body" not in request
            if kind is None:
                assert fmt is None, fmt
            else:
                assert fmt is not None and fmt["type"] == kind
                assert fmt["name"] == "verdict" and fmt["strict"] is True
    log = runs["chat_schema"].judged()
    requests = model_requests(log)
    assert log.samples is not None and len(requests) == len(log.samples)
    for request in requests:
        assert request["response_format"]["type"] == "json_schema"


def test_json_object_is_refused_on_the_responses_api_in_one_line(
    cli_runs: dict[str, Ran],
) -> None:
    ran = cli_runs["responses_json_object"]
    assert ran.run.returncode == 1, "\n".join(ran.run.lines)
    (line,) = said(ran.run)
    assert "openai/gpt-5-mini" in line and "Responses API" in line
    assert "-T constrained=true" in line
    assert "Traceback" not in line
    # Refused before the eval began: nothing was asked of the server, no log written.
    assert ran.requests == []
    assert not ran.log_dir.exists() or not any(ran.log_dir.iterdir())


def test_a_refused_schema_is_one_line_and_exit_1_on_the_responses_api(
    cli_runs: dict[str, Ran],
) -> None:
    ran = cli_runs["responses_refused"]
    assert ran.run.returncode == 1, "\n".join(ran.run.lines)
    (line,) = said(ran.run)
    assert line.startswith("openai/o1-mini rejected the verdict schema that -T constrained=true")
    assert "'text.format' of type 'json_schema' is not supported with this model" in line
    # OpenAI's json_object format carries no schema, and the Responses API gets none at all.
    assert "-T constrained=false" in line and "constrained=json_object" not in line
    assert not ran.log_dir.exists() or not any(ran.log_dir.iterdir())


def test_chat_completions_takes_the_strict_schema_and_the_probe(
    runs: dict[str, Judged],
) -> None:
    ran = runs["chat_schema"]
    ran.judged()
    paths = {path for path, _ in ran.requests}
    assert paths == {"/v1/chat/completions"}
    # The probe, as the Responses API needs it, is one Chat Completions takes too.
    (probe,) = [body for _, body in ran.requests if "max_tokens" in body]
    assert probe["max_tokens"] >= MIN_OUTPUT_TOKENS
    assert probe["response_format"]["json_schema"]["strict"] is True


def test_json_object_on_the_responses_api_errors_each_sample_unsent_where_the_probe_cannot_tell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model given is also INSPECT_EVAL_MODEL's: the task may be created for it outside an
    # eval (judge-matrix does), so it is not checked then; each sample's first call is.
    server = platform()
    with serving(server) as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-dummy-standin")
        monkeypatch.setenv("INSPECT_EVAL_MODEL", "openai/gpt-5-mini")
        (log,) = eval(
            task_file(),
            task_args={"dataset": FIXTURES, "constrained": "json_object"},
            model="openai/gpt-5-mini",
            limit=2,
            log_dir=str(tmp_path),
            display="none",
        )
    assert log.status == "error" and log.samples
    for sample in log.samples:
        assert sample.error is not None
        assert "-T constrained=json_object: openai/gpt-5-mini goes to OpenAI's Responses API" in (
            sample.error.message
        )
        assert not [e for e in sample.events if isinstance(e, ModelEvent)]
    assert server.requests == []
