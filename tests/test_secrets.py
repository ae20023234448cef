"""API keys in the environment never reach a log, a report or an error message.

Three real CLI runs with sentinel keys in the environment: the OpenAI provider against a local
OpenAI-compatible server (the key really is sent, as a bearer token; one request is refused),
mockllm failing on every sample, and a bad option. Every file the runs write, under a HOME,
XDG folders and TMPDIR of their own (so Inspect's trace logs and caches are searched too),
is searched for the keys: zip members (.eval logs) and gzip files decompressed.
"""

import gzip
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from inspect_ai.log import read_eval_log

from farejudge.simulate.synthetic_cases import CASE_ID, gold_reply, write_cases
from tests.cli import inspect_eval
from tests.json_server import JsonHandler, chat_completion, serving

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


def test_no_key_in_any_file_or_message(tmp_path: Path, openai_server: str) -> None:
    cases = tmp_path / "cases.jsonl"
    ids = write_cases(cases, 4)
    written = tmp_path / "written"
    env = {
        **SENTINELS,
        "OPENAI_BASE_URL": openai_server,
        "HOME": str(written / "home"),
        "XDG_DATA_HOME": str(written / "data"),
        "XDG_CACHE_HOME": str(written / "cache"),
        "XDG_CONFIG_HOME": str(written / "config"),
        "TMPDIR": str(written / "tmp"),
        "COLUMNS": "400",
    }
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
    assert mockllm_run.returncode == 0, mockllm_run.stdout + mockllm_run.stderr
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
