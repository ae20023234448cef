"""The README's local-server commands, run as written against llama-cpp-python's server.

The server is llama-cpp-python's (`python -m farejudge.providers.gguf.server` runs it with the
`gguf/` provider's native settings) on the packaged SmolLM2, started by the README's own command
line (only the port changed). The eval is the README's command line (only the
port changed) plus run-size options, three ways: without the schema, with the schema as
`json_object` (which that server takes), and with it as `json_schema` (which it refuses with
HTTP 500 on every request: the run must stop at once and say so in one line).

Then the same refusal from a stand-in server, in-process and without a model: refused when the
task is created, and, where that check cannot tell, refused by the run's first request.
"""

import importlib.util
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

from farejudge.core.errors import InputError
from farejudge.evals.schema_check import FIRST_SCHEMA_ATTEMPTS
from farejudge.evals.verdict_schema import (
    BOUNDED_VERDICT_SCHEMA,
    VERDICT_SCHEMA,
    json_object_schema,
)
from tests.support.json_server import JsonHandler, chat_completion, serving
from tests.support.local_server import (
    README_PORT,
    Server,
    TimedRun,
    free_port,
    on_port,
    readme_command,
    run_commands,
    running_server,
)

needs_server = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp.server") is None
    or importlib.util.find_spec("sse_starlette") is None,
    reason="llama-cpp-python[server] is not installed",
)

FIXTURES = "tests/fixtures/cases.jsonl"
# A constrained verdict from this model is 30-130 tokens. Unconstrained it writes prose that
# may run on to the limit (judge failures are expected there): a short limit keeps it quick.
RUNS: dict[str, list[str]] = {
    "unconstrained": ["--max-tokens", "96"],
    "json_object": ["--max-tokens", "512", "-T", "constrained=json_object"],
    "json_schema": ["--max-tokens", "512", "-T", "constrained=true"],
}
# Generous for a loaded 2-core machine, where a run takes several times as long beside the
# other two (docs/performance.md#tests). Retried without end, as Inspect retries an HTTP 500,
# the run would never end on its own.
REFUSAL_SECONDS = 60
ENV = {
    # Inspect prints an error through rich, which hard-wraps it at the terminal width (80
    # columns in a pipe): the runs get the width of a wide terminal.
    "COLUMNS": "400",
    # Nothing leaves the machine: a request for anything but the local server goes to a
    # proxy that is not there and fails.
    "HTTP_PROXY": "http://127.0.0.1:9",
    "HTTPS_PROXY": "http://127.0.0.1:9",
    "ALL_PROXY": "http://127.0.0.1:9",
    "NO_PROXY": "127.0.0.1,localhost",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    port = free_port()
    command = on_port(
        readme_command("farejudge.providers.gguf.server"),
        f"--port {README_PORT}",
        f"--port {port}",
    )
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    # Loopback only. The server's own defaults, stated: 2,048 tokens of context hold a
    # ~750-token prompt and 512 new ones; one thread for decoding and one for prompts leave a
    # core to Inspect and the suite's other workers (a second, spinning, fights them for it).
    extra = ["--host", "127.0.0.1", "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1"]
    with running_server(command, port, log, extra) as running:
        yield running


@pytest.fixture(scope="module")
def runs(server: Server, tmp_path_factory: pytest.TempPathFactory) -> dict[str, TimedRun]:
    """The README's eval command, each way at once: the server answers one request at a time,
    so the runs' start-ups overlap its work."""
    command = on_port(
        readme_command("--model openai-api/local/"),
        f"127.0.0.1:{README_PORT}",
        server.url.removeprefix("http://").removesuffix("/v1"),
    )
    root = tmp_path_factory.mktemp("local_server_runs")
    size = ["--limit", "2", "-T", f"dataset={FIXTURES}"]
    done = run_commands(
        [
            (command, [*size, "--log-dir", str(root / name), *options])
            for name, options in RUNS.items()
        ],
        ENV,
    )
    return dict(zip(RUNS, done, strict=True))


def only_log(log_dir: Path) -> EvalLog:
    (path,) = log_dir.glob("*.eval")
    return read_eval_log(path)


def log_dir(timed: TimedRun) -> Path:
    return Path(timed.argv[timed.argv.index("--log-dir") + 1])


def judged(timed: TimedRun) -> EvalLog:
    run = timed.run
    assert run.returncode == 0, "\n".join(run.lines)
    log = only_log(log_dir(timed))
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 2
    for sample in log.samples:
        assert sample.error is None, sample.error
        assert sample.scores is not None and "verdict_agreement" in sample.scores
        # Usage comes from the server, so Inspect has no tokens to count (no tokenizer).
        usage = sample.output.usage
        assert usage is not None and usage.input_tokens > 0 and usage.output_tokens > 0
    return log


@pytest.mark.model
@pytest.mark.subprocess
@needs_server
def test_unconstrained_run_scores_every_sample(runs: dict[str, TimedRun]) -> None:
    log = judged(runs["unconstrained"])
    assert log.samples is not None
    for sample in log.samples:
        # No request carried the schema, in either form.
        (event,) = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert event.call is not None
        assert "response_format" not in event.call.request
        extra_body = event.call.request.get("extra_body")
        assert not isinstance(extra_body, dict) or "response_format" not in extra_body


@pytest.mark.model
@pytest.mark.subprocess
@needs_server
def test_json_object_run_parses_every_reply(runs: dict[str, TimedRun]) -> None:
    log = judged(runs["json_object"])
    assert log.samples is not None
    schema = json_object_schema()
    sent = {"type": "json_object", "schema": schema}
    for sample in log.samples:
        score = sample.scores["verdict_agreement"]  # type: ignore[index]
        assert score.answer != "judge failure", (score.explanation, sample.output.completion)
        (event,) = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert event.call is not None
        extra_body = event.call.request["extra_body"]
        assert isinstance(extra_body, dict) and extra_body["response_format"] == sent
    # The verdict schema, bounded, each string's characters spelled out as a pattern.
    verdict = BOUNDED_VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
    assert list(schema["properties"]) == list(verdict["properties"])
    assert schema["required"] == verdict["required"]
    reasoning = schema["properties"]["reasoning"]
    assert reasoning["maxLength"] == verdict["properties"]["reasoning"]["maxLength"]
    assert reasoning["pattern"] == r'^[^"\\\x00-\x1f]{0,400}$'


@needs_server
def test_json_object_strings_hold_no_raw_control_character() -> None:
    # llama-cpp-python's grammar for a plain schema string lets a raw newline through, which
    # no JSON parser takes; the pattern compiles to a character class that does not.
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    plain = json.dumps(VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True))
    assert re.search(r'^char ::= \[\^"\\\\\] ', json_schema_to_gbnf(plain), re.M)
    grammar = json_schema_to_gbnf(json.dumps(json_object_schema()))
    assert "char ::=" not in grammar
    assert grammar.count(r'::= [^"\\\x00-\x1f]') == 2  # claims and reasoning
    pattern = json_object_schema()["properties"]["reasoning"]["pattern"]
    for text, allowed in (("costs $25 (P1)", True), ("a\nb", False), ('say "x"', False)):
        assert bool(re.fullmatch(pattern, text)) is allowed


@pytest.mark.model
@pytest.mark.subprocess
@needs_server
def test_json_schema_run_stops_at_once_with_one_line(runs: dict[str, TimedRun]) -> None:
    timed = runs["json_schema"]
    run = timed.run
    assert timed.seconds < REFUSAL_SECONDS
    assert run.returncode != 0
    (line,) = run.lines
    assert "openai-api/local/my-model rejected the verdict schema" in line
    assert "-T constrained=false" in line and "-T constrained=json_object" in line
    assert "Traceback" not in run.stdout + run.stderr
    # Refused before the eval began: Inspect writes its log before the first sample runs.
    folder = log_dir(timed)
    assert not folder.exists() or not any(folder.iterdir())


# The same refusal without a model: a stand-in that answers as llama-cpp-python's server does.
REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}\n\n"
    '  File "llama_cpp/server/app.py", line 376, in create_chat_completion\n'
    "    POST /v1/chat/completions"
)
VERDICT_REPLY = json.dumps({"grounded": True, "unsupported_claims": [], "reasoning": "ok"})


class RefusesJsonSchema(JsonHandler):
    """Chat completions: HTTP 500 for a json_schema response format, else a verdict."""

    refused: ClassVar[int] = 0

    def do_POST(self) -> None:
        request = self.read_json()
        status, body = 200, chat_completion(request["model"], VERDICT_REPLY, completion_tokens=20)
        if (request.get("response_format") or {}).get("type") == "json_schema":
            RefusesJsonSchema.refused += 1
            status, body = 500, {"error": {"message": REFUSAL, "type": "internal_server_error"}}
        self.send_json(status, body)


STAND_IN = "openai-api/local/stand-in"


@pytest.fixture
def stand_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("LOCAL_API_KEY", "none")
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    RefusesJsonSchema.refused = 0
    with serving(RefusesJsonSchema) as url:
        yield url


def stand_in_eval(url: str, log_dir: Path) -> EvalLog:
    (log,) = eval(
        "evals/judge_groundedness.py",
        task_args={"dataset": FIXTURES, "constrained": True},
        model=STAND_IN,
        model_base_url=url,
        log_dir=str(log_dir),
        display="none",
    )
    return log


@pytest.mark.slow
def test_a_refused_schema_ends_the_run_before_it_starts(stand_in: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as refused:
        stand_in_eval(stand_in, tmp_path)
    (line,) = refused.value.problems
    assert line == (
        f"{STAND_IN} rejected the verdict schema that -T constrained=true sends (Error code: "
        "500 - 1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', "
        "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}); "
        "run with -T constrained=false, or -T constrained=json_object if the server takes the "
        "schema that way"
    )
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_where_the_probe_cannot_tell_the_first_request_stops_the_run(
    stand_in: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The model given is also INSPECT_EVAL_MODEL's: the task may be created for it outside an
    # eval, so it is not probed, and the run's first schema request finds the refusal.
    monkeypatch.setenv("INSPECT_EVAL_MODEL", STAND_IN)
    started = time.monotonic()
    log = stand_in_eval(stand_in, tmp_path)
    assert time.monotonic() - started < REFUSAL_SECONDS
    assert log.status == "error" and log.samples
    for sample in log.samples:
        assert sample.error is not None
        assert sample.error.message.startswith(
            f"judge unreachable: {STAND_IN} rejected the verdict schema that -T constrained=true"
        )
    # Each sample would otherwise be retried without end: only the first request was made,
    # with its attempts (and the OpenAI client's own retries of an HTTP 500).
    assert 0 < RefusesJsonSchema.refused <= 3 * FIRST_SCHEMA_ATTEMPTS
