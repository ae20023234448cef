"""Reruns that cost nothing: judge-matrix --cache and inspect eval --cache, counted at the server.

Each test points Inspect's cache at a folder of its own (INSPECT_CACHE_DIR): the user's cache,
and every other test's, stay out of it.
"""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from farejudge.matrix.cli import EXIT_INPUT, EXIT_OK, run
from tests.support.cli import inspect_eval
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.scripted_cases import write_cases
from tests.support.standins.openai_platform import OpenAIPlatform, platform

MODEL = "openai/gpt-4o-mini"
VERSIONS = ["v1", "v2"]
EDITED_CASE = "t-price"
OFFLINE = OFFLINE_OPENAI


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, type]]:
    """A counting stand-in for OpenAI, and a cache of this test's own."""
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    for name, value in OFFLINE.items():
        monkeypatch.setenv(name, value)
    handler = platform()
    with serving(handler) as url:
        yield url, handler


def judged_cases(handler: type[OpenAIPlatform]) -> list[str]:
    """The case each chat request judged, by the case's question in its user message."""
    return [body["messages"][-1]["content"] for path, body in handler.requests]


def matrix(url: str, cases: Path, log_dir: Path, *extra: str) -> int:
    return run(
        [
            "--model",
            MODEL,
            "--model-base-url",
            url,
            "--versions",
            ",".join(VERSIONS),
            "--log-dir",
            str(log_dir),
            "-T",
            f"dataset={cases}",
            *extra,
        ]
    )


def edit_case(cases: Path, out: Path, case_id: str) -> Path:
    """A copy of the case file with one case's answer changed."""
    lines = []
    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            case["answer"] = case["answer"] + " Thank you for riding."
        lines.append(json.dumps(case))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.mark.slow
def test_matrix_cache_sends_only_what_changed(
    tmp_path: Path, server: tuple[str, type[OpenAIPlatform]]
) -> None:
    url, handler = server
    cases = write_cases(tmp_path / "cases.jsonl")
    n_cases = len(cases.read_text(encoding="utf-8").splitlines())

    assert matrix(url, cases, tmp_path / "first", "--cache") == EXIT_OK
    assert len(handler.requests) == len(VERSIONS) * n_cases

    # A new log folder: an eval set would reuse its own finished logs, cache or not.
    handler.requests.clear()
    assert matrix(url, cases, tmp_path / "second", "--cache") == EXIT_OK
    assert handler.requests == []

    # (The same expiry: Inspect keys its cache on the expiry too.)
    edited = edit_case(cases, tmp_path / "edited.jsonl", EDITED_CASE)
    assert matrix(url, edited, tmp_path / "third", "--cache") == EXIT_OK
    sent = judged_cases(handler)
    assert len(sent) == len(VERSIONS)
    assert all("Thank you for riding." in content for content in sent)


@pytest.mark.slow
def test_without_cache_a_rerun_sends_everything_again(
    tmp_path: Path, server: tuple[str, type[OpenAIPlatform]]
) -> None:
    url, handler = server
    cases = write_cases(tmp_path / "cases.jsonl")
    assert matrix(url, cases, tmp_path / "first", "--cache") == EXIT_OK
    first = len(handler.requests)
    handler.requests.clear()
    assert matrix(url, cases, tmp_path / "second") == EXIT_OK
    assert len(handler.requests) == first


@pytest.mark.parametrize("value", ["3x", "W", "no-such-policy.yaml"])
def test_a_bad_cache_expiry_is_one_line(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        run(["--model", "mockllm/model", "--cache", value])
    assert exit_.value.code == EXIT_INPUT
    assert f"argument --cache: {value!r} is neither" in capsys.readouterr().err


def test_a_cache_policy_file_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("expiry: 12h\nper_epoch: sideways\n", encoding="utf-8")
    with pytest.raises(SystemExit):
        run(["--model", "mockllm/model", "--cache", str(policy)])
    assert f"{policy}: per_epoch:" in capsys.readouterr().err


@pytest.mark.subprocess
@pytest.mark.parametrize("constrained", ["false", "true"])
def test_inspect_eval_cache_sends_nothing_the_second_time(tmp_path: Path, constrained: str) -> None:
    handler = platform()
    with serving(handler) as url:
        args = [
            "--model",
            MODEL,
            "--cache",
            "--limit",
            "2",
            "-T",
            "dataset=tests/fixtures/cases.jsonl",
            "-T",
            f"constrained={constrained}",
            "--display",
            "none",
        ]
        env = {**OFFLINE, "OPENAI_BASE_URL": url, "INSPECT_CACHE_DIR": str(tmp_path / "c")}
        (first,) = inspect_eval([[*args, "--log-dir", str(tmp_path / "a")]], env=env)
        assert first.returncode == 0, first.lines
        sent = len(handler.requests)
        (second,) = inspect_eval([[*args, "--log-dir", str(tmp_path / "b")]], env=env)
    assert second.returncode == 0, second.lines
    assert sent == 2
    assert handler.requests[sent:] == [], "a cached rerun, schema probe and all, sends nothing"
