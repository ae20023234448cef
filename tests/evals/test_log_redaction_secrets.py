"""API keys never reach a log, a report or an error message, even where a server echoes them.

Three real CLI runs with sentinel keys in the environment: the OpenAI provider against a local
OpenAI-compatible server (the key really is sent, as a bearer token; one request is refused),
mockllm failing on every sample, and a bad option. Then eight logs from a server that
refuses one case with OpenAI's 401, quoting the bearer key it received: `openai-api/` and
`openai/` (both models of one run, a log each), the key in the environment or given as
`-M api_key=…`, each in both log formats, and `judge-compare` on each log. Every file the
runs write, under a HOME, XDG folders and TMPDIR of their own (so Inspect's trace logs and
caches are searched too), is searched for the keys: zip members (.eval logs) and gzip files
decompressed.
"""

import gzip
import os
import re
import signal
import subprocess
import time
import zipfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from inspect_ai.solver import generate

from farejudge.comparison.cli import run as judge_compare
from farejudge.core.credentials import Redactor, redactor
from farejudge.evals.log_redaction import install_log_redaction
from farejudge.testing.synthetic_cases import CASE_ID, gold_reply, write_cases
from tests.support.cli import INSPECT, REPO_ROOT, TASK, inspect_eval
from tests.support.json_server import JsonHandler, chat_completion, serving
from tests.support.standins.openai_errors import EchoesKey, EchoesKeySlowly

SENTINELS = {
    "OPENAI_API_KEY": "sk-sentinel-openai-5f0d1c9e7a",
    "ANTHROPIC_API_KEY": "sk-ant-sentinel-93b2e6d4c1",
    "GOOGLE_API_KEY": "sentinel-google-c47a0e1f",
    "MISTRAL_API_KEY": "sentinel-mistral-8d2b6a90",
    "HF_TOKEN": "hf_sentinel_1e7c4b9a02",
}
REFUSED = "syn-00001"


class FakeOpenAI(JsonHandler):
    """Chat completions that echo gold for synthetic cases, and refuse one case with a 400."""

    authorizations: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        request = self.read_json()
        FakeOpenAI.authorizations.append(self.headers.get("Authorization", ""))
        found = CASE_ID.search(request["messages"][-1]["content"])
        case_id = found.group(1) if found else ""
        body: dict[str, Any]
        if case_id == REFUSED:
            status = 400
            body = {"error": {"message": "Invalid 'messages': too long", "type": "invalid"}}
        else:
            status = 200
            body = chat_completion(request["model"], gold_reply(case_id), completion_tokens=60)
        self.send_json(status, body)


@pytest.fixture
def openai_server() -> Iterator[str]:
    with serving(FakeOpenAI) as url:
        yield url


@pytest.fixture
def echoing_server() -> Iterator[str]:
    EchoesKey.refused = frozenset({REFUSED})
    EchoesKey.keys = []
    with serving(EchoesKey) as url:
        yield url


def written_to(written: Path) -> dict[str, str]:
    """Environment that sends every file a run may write (home, data, cache, config, temp
    files) under `written`, so the test can read them all; wide, so no line is wrapped."""
    return {
        "HOME": str(written / "home"),
        "XDG_DATA_HOME": str(written / "data"),
        "XDG_CACHE_HOME": str(written / "cache"),
        "XDG_CONFIG_HOME": str(written / "config"),
        "TMPDIR": str(written / "tmp"),
        "COLUMNS": "400",
    }


def written_texts(root: Path) -> Iterator[tuple[str, bytes]]:
    """Every file under root as bytes, and the decompressed members of zip and gzip files."""
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        yield str(path), data
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    yield f"{path}!{member}", archive.read(member)
        elif data[:2] == b"\x1f\x8b":
            yield f"{path}!gunzip", gzip.decompress(data)


def failures(log_dir: Path) -> dict[str, str]:
    """Per sample: the sample error (an outage), else the judge failure, else "None"."""
    (path,) = log_dir.glob("*.eval")
    log = read_eval_log(path)
    assert log.samples
    return {
        str(s.id): s.error.message
        if s.error
        else str((s.scores or {})["verdict_agreement"].metadata.get("failure"))  # type: ignore[union-attr]
        for s in log.samples
    }


@pytest.mark.subprocess
def test_no_key_in_any_file_or_message(tmp_path: Path, openai_server: str) -> None:
    cases = tmp_path / "cases.jsonl"
    ids = write_cases(cases, 4)
    written = tmp_path / "written"
    env = {**SENTINELS, "OPENAI_BASE_URL": openai_server, **written_to(written)}
    for folder in ("home", "tmp"):
        (written / folder).mkdir(parents=True)
    options = {
        "openai": ["--model", "openai/gpt-4o-mini", "-T", "fail_on_error=0.5"],
        "mockllm": [
            *("--model", "mockllm/model", "-M", "custom_outputs=broken"),
            *("-T", "fail_on_error=false"),
        ],
        "bad option": ["--model", "openai/gpt-4o-mini", "-T", "prompt_version=v9"],
    }
    logs = {name: written / "logs" / name for name in options}
    FakeOpenAI.authorizations = []

    runs = inspect_eval(
        [
            ["-T", f"dataset={cases}", *args, "--log-dir", str(logs[name])]
            for name, args in options.items()
        ],
        env=env,
    )

    # The runs did what they were for, so the search below has something to search.
    openai_run, mockllm_run, bad_option = runs
    assert openai_run.returncode == 0, openai_run.stdout + openai_run.stderr
    assert set(FakeOpenAI.authorizations) == {f"Bearer {SENTINELS['OPENAI_API_KEY']}"}
    seen = failures(logs["openai"])
    # How openai words a status in its error text is openai's: the class and the code suffice.
    refused = seen.pop(REFUSED)
    assert refused.startswith("judge unreachable: BadRequestError: ") and "400" in refused
    assert set(seen.values()) == {"None"} and len(seen) == len(ids) - 1
    # Every sample errored: nothing was judged, and the command says so.
    assert mockllm_run.returncode == 1, mockllm_run.stdout + mockllm_run.stderr
    assert (
        "judge_groundedness (mockllm/model): nothing judged: 4 of 4 samples" in mockllm_run.stderr
    )
    assert all(
        f.startswith("judge unreachable: ValueError") for f in failures(logs["mockllm"]).values()
    )
    assert bad_option.returncode != 0
    assert "valid versions: v1, v2, v3" in bad_option.stdout + bad_option.stderr

    searched: set[str] = set()
    for where, data in [
        *written_texts(written),
        *((f"run {i} output", (r.stdout + r.stderr).encode()) for i, r in enumerate(runs)),
    ]:
        searched.add(where)
        for name, key in SENTINELS.items():
            assert key.encode() not in data, f"{name} found in {where}"
    # Whatever else Inspect writes, the search covered what the runs are known to produce: each
    # run's output, and the log of each run that judged, unzipped (the bad option stops before
    # any log is written).
    assert {f"run {i} output" for i in range(len(runs))} <= searched
    for name in ("openai", "mockllm"):
        (log_file,) = logs[name].glob("*.eval")
        assert str(log_file) in searched
        assert any(where.startswith(f"{log_file}!") for where in searched), f"{log_file} unzipped"

    # Inspect's log header records no environment: neither the keys nor their names.
    for log_file in written.glob("logs/*/*.eval"):
        header = read_eval_log(log_file, header_only=True).model_dump_json()
        assert not [name for name in SENTINELS if name in header]


# One key per way of giving it: the server's record shows which one each run sent.
ECHOED = {"env": "sk-echoed-env-3c9f1a7e5b", "-M": "sk-echoed-arg-8e2d6b0c4f"}
# The refusal as the server worded it, with the key shown by the name it was given under.
REDACTED_REFUSAL = re.compile(
    r"Incorrect API key provided: \[(OPENAI_API_KEY|LOCAL_API_KEY|api_key) redacted\]\. "
    r"You can find your API key at"
)


# Both providers in each run, one log each: `openai-api/` reads its server from
# LOCAL_BASE_URL, `openai/` from OPENAI_BASE_URL.
PROVIDERS = {"openai-api/local/m": "openai-api", "openai/gpt-4o-mini": "openai"}


def echoed_runs(cases: Path, logs: Path, source: str) -> dict[str, list[str]]:
    """`inspect eval` options per log format: both providers, the key from `source`."""
    key = ["-M", f"api_key={ECHOED['-M']}"] if source == "-M" else []
    return {
        fmt: [
            *("--model", ",".join(PROVIDERS)),
            *key,
            *("-T", f"dataset={cases}", "-T", "fail_on_error=false"),
            *("--log-format", fmt, "--log-dir", str(logs / fmt)),
        ]
        for fmt in ("json", "eval")
    }


def key_counts(
    where: Path, keys: list[str], outputs: Sequence[tuple[str, str]] = ()
) -> dict[str, int]:
    """Occurrences of each key, per file (or archive member) and per output holding one."""
    counts: dict[str, int] = {}
    texts = [*written_texts(where), *((name, text.encode()) for name, text in outputs)]
    for name, data in texts:
        for key in keys:
            if found := data.count(key.encode()):
                counts[f"{name}: {key}"] = found
    return counts


@pytest.mark.subprocess
def test_no_echoed_key_in_any_log(
    tmp_path: Path, echoing_server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    write_cases(cases, 3)
    written = tmp_path / "written"
    for folder in ("home", "tmp"):
        (written / folder).mkdir(parents=True)
    env = {"OPENAI_BASE_URL": echoing_server, "LOCAL_BASE_URL": echoing_server}
    env |= written_to(written)
    # The key in each provider's variable, or only on the command line.
    key_env = {"env": {"OPENAI_API_KEY": ECHOED["env"], "LOCAL_API_KEY": ECHOED["env"]}, "-M": {}}
    outputs: list[tuple[str, str]] = []
    log_files: dict[str, Path] = {}
    for source, extra_env in key_env.items():
        logs = written / "logs" / source.strip("-")
        runs = echoed_runs(cases, logs, source)
        EchoesKey.keys = []
        done = inspect_eval(list(runs.values()), env={**env, **extra_env})
        for fmt, run in zip(runs, done, strict=True):
            outputs.append((f"{source} {fmt} output", run.stdout + run.stderr))
            assert run.returncode == 0, run.stdout + run.stderr
            for log_file in (logs / fmt).iterdir():
                model = read_eval_log(log_file, header_only=True).eval.model
                log_files[f"{source} {PROVIDERS[model]} {fmt}"] = log_file
        assert set(EchoesKey.keys) == {ECHOED[source]}, "the runs sent the key given"
    # Every provider, log format and way of giving the key wrote its log.
    assert len(log_files) == len(key_env) * len(PROVIDERS) * 2
    for name, log_file in log_files.items():
        report = written / "reports" / name.replace(" ", "-")
        # Exit 1: the gate is incomplete, one case errored.
        assert judge_compare([str(log_file), "--out", str(report), "--resamples", "100"]) == 1
        said = capsys.readouterr()
        outputs.append((f"{name} judge-compare", said.out + said.err))

    assert list(written.glob("reports/*/report.md")), "judge-compare wrote its reports"
    assert list(written.glob("data/inspect_ai/traces/*")), "Inspect wrote its trace logs"
    assert key_counts(written, list(ECHOED.values()), outputs) == {}

    # Each log reads back, its refusal errored the sample, and the text around the key is kept
    # wherever Inspect recorded it.
    for name, log_file in log_files.items():
        log = read_eval_log(log_file)
        assert log.samples, name
        refused = next(s for s in log.samples if s.id == REFUSED)
        assert refused.error and REDACTED_REFUSAL.search(refused.error.message), name
        (event,) = [e for e in refused.events if isinstance(e, ModelEvent)]
        assert event.error and REDACTED_REFUSAL.search(event.error), name
        assert [s.error for s in log.samples if s.id != REFUSED] == [None, None], name


def test_a_redactor_keeps_the_text_around_each_credential() -> None:
    redact = Redactor({"sk-abc-12345678": "SHORT_KEY", "sk-abc-12345678-long": "LONG_KEY"})
    said = "refused sk-abc-12345678-long; then sk-abc-12345678."
    assert redact(said) == "refused [LONG_KEY redacted]; then [SHORT_KEY redacted]."
    unrelated = "nothing secret here"
    assert redact(unrelated) is unrelated
    assert redact.found_in(b'{"message": "refused sk-abc-12345678"}')
    assert not redact.found_in(b"sk-abc-1234567")
    # As JSON writes it: a quote in the key is escaped in the file.
    assert Redactor({'sk-"quoted"-key': "K"}).found_in(b'"sk-\\"quoted\\"-key"')
    # Replaced in a file's bytes as written there, so the JSON around it stays valid.
    quoted = Redactor({'sk-"quoted"-key': "K"})
    assert quoted.redact_bytes(b'{"m": "sk-\\"quoted\\"-key"}') == b'{"m": "[K redacted]"}'


def test_short_values_and_harmless_names_are_not_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAREJUDGE_TEST_API_KEY", "none")
    monkeypatch.setenv("FAREJUDGE_TEST_SETTING", "sk-looks-like-a-key")
    monkeypatch.setenv("FAREJUDGE_TEST_TOKEN", "tok-9f8e7d6c5b")
    said = "none sk-looks-like-a-key tok-9f8e7d6c5b"
    assert redactor()(said) == "none sk-looks-like-a-key [FAREJUDGE_TEST_TOKEN redacted]"
    # A model argument whose name marks it as secret counts too.
    assert redactor([("client_secret", "cs-1a2b3c4d5e")])("cs-1a2b3c4d5e") == (
        "[client_secret redacted]"
    )


@pytest.mark.slow
@pytest.mark.parametrize("log_format", ["json", "eval"])
def test_a_log_written_in_process_is_rewritten_and_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log_format: Literal["json", "eval"]
) -> None:
    # A credential in the environment, one given to the provider, one among its arguments.
    keys = {"env": "tok-env-6d5c4b3a21", "api_key": "sk-arg-7e6d5c4b32", "arg": "cs-3f2e1d0c9b"}
    monkeypatch.setenv("FAREJUDGE_TEST_TOKEN", keys["env"])
    reply = ModelOutput.from_content("mockllm/model", "Keys: " + ", ".join(keys.values()))
    reply.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
    model = get_model(
        "mockllm/model",
        custom_outputs=[reply],
        api_key=keys["api_key"],
        client_secret=keys["arg"],
        memoize=False,
    )
    task = Task(
        dataset=[Sample(input=f"Repeat {keys['env']}", target="x")],
        solver=generate(),
        scorer=match(),
    )

    # What the project's task does as it is created.
    install_log_redaction()
    (log,) = eval(task, model=model, log_dir=str(tmp_path), log_format=log_format)

    assert key_counts(tmp_path, list(keys.values())) == {}
    written = read_eval_log(log.location)
    (sample,) = written.samples or []
    assert sample.input == "Repeat [FAREJUDGE_TEST_TOKEN redacted]"
    assert sample.output.completion == (
        "Keys: [FAREJUDGE_TEST_TOKEN redacted], [api_key redacted], [client_secret redacted]"
    )
    assert written.eval.model_args["client_secret"] == "[client_secret redacted]"


# --- a run killed before its end ------------------------------------------------------------

KILLED_KEY = "sk-killed-run-7c3e9a1b5d42"


def killed_run(cases: Path, log_dir: Path, env: dict[str, str]) -> Path:
    """`inspect eval` with the key in OPENAI_API_KEY, killed (SIGKILL) once its log holds
    three samples: its log, as the kill left it."""
    command = [INSPECT, "eval", TASK, "--model", "openai/gpt-4o-mini", "-T", f"dataset={cases}"]
    command += ["-T", "fail_on_error=false", "--max-connections", "2", "--log-dir", str(log_dir)]
    run = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            if samples_in(log_dir) >= 3:
                break
            time.sleep(0.1)
        assert run.poll() is None, f"the run ended by itself (exit {run.returncode})"
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()
    (log,) = log_dir.glob("*.eval")
    return log


def samples_in(log_dir: Path) -> int:
    """Samples in the one .eval log under `log_dir` (0 while there is none, or it is being
    written and cannot be read)."""
    for log in log_dir.glob("*.eval"):
        try:
            with zipfile.ZipFile(log) as archive:
                return sum(name.startswith("samples/") for name in archive.namelist())
        except (OSError, zipfile.BadZipFile):
            return 0
    return 0


@pytest.mark.subprocess
@pytest.mark.parametrize("then", ["the next run", "eval-retry"])
def test_a_killed_run_leaves_no_key_on_disk_once_another_run_ends(
    tmp_path: Path, then: str
) -> None:
    cases = tmp_path / "cases.jsonl"
    ids = write_cases(cases, 40)
    written = tmp_path / "written"
    for folder in ("home", "tmp"):
        (written / folder).mkdir(parents=True)
    env = {"OPENAI_API_KEY": KILLED_KEY, **written_to(written)}
    EchoesKey.refused = frozenset(ids[::2])
    EchoesKey.keys = []
    with serving(EchoesKeySlowly) as url:
        env["OPENAI_BASE_URL"] = url
        killed = killed_run(cases, written / "logs", env)
        left = key_counts(written, [KILLED_KEY])
        assert any(name.startswith(f"{killed}!samples/") for name in left), left
        assert any("/samplebuffer/" in name for name in left), left
        if then == "the next run":
            # Another run into the same folder, of one case the server answers.
            (one,) = [line for line in cases.read_text().splitlines() if ids[1] in line]
            (tmp_path / "one.jsonl").write_text(one + "\n", encoding="utf-8")
            args = ["--model", "openai/gpt-4o-mini", "-T", f"dataset={tmp_path / 'one.jsonl'}"]
            (run,) = inspect_eval([[*args, "--log-dir", str(written / "logs")]], env=env)
            assert run.returncode == 0, "\n".join(run.lines)
            assert key_counts(written, [KILLED_KEY], [("output", run.stdout + run.stderr)]) == {}
            # The killed log still reads, its refusals with the key shown by its name.
            log = read_eval_log(str(killed))
            refused = [s.error.message for s in log.samples or [] if s.error]
            assert refused and all(REDACTED_REFUSAL.search(message) for message in refused)
        # Resumed, redacted or not, the killed run judges every case once.
        retry = [INSPECT, "eval-retry", str(killed), "--log-dir", str(written / "retried")]
        done = subprocess.run(
            retry, cwd=REPO_ROOT, env={**os.environ, **env}, capture_output=True, text=True
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert key_counts(written, [KILLED_KEY], [("output", done.stdout + done.stderr)]) == {}
    (retried,) = (written / "retried").glob("*.eval")
    samples = read_eval_log(str(retried)).samples or []
    assert sorted(str(s.id) for s in samples) == sorted(ids)
