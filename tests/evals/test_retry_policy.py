"""A dead endpoint errors every sample within the retry policy's bound, and each sample's error
states the requests the server saw.

Without a bound, Inspect retries a failed call without end, and the OpenAI SDK retried twice
more under each of its attempts: against an always-503 stand-in, `inspect eval` was still
running after 90 s, 60 requests into 4 cases and no sample finished; with `--max-retries 1`
a sample's error said "gave up after 2 attempts" where the server had seen 6 requests (the
Anthropic SDK retries twice on its own as well).
"""

import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from farejudge.evals.retry_policy import DEFAULT_MAX_RETRIES
from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import REPO_ROOT, inspect_eval
from tests.support.json_server import serving
from tests.support.standins.outages import Overloaded, RateLimited, Refusing, SampleKey, Unavailable

ATTEMPTS = re.compile(r"\(gave up after (\d+) attempts\)$")
# Inspect's backoff before retry k (from 1) is 3 * 2**(k-1) s plus up to 3 s of jitter.
MAX_WAIT = sum(3 * 2**k + 3 for k in range(DEFAULT_MAX_RETRIES))
# A sample's first request to its last, as the server sees them: the waits, and the requests
# themselves on a 2-core machine other jobs are loading.
RETRY_BOUND = MAX_WAIT + 10
# The whole command: Inspect's start-up took 25 s on such a machine, its exit 5 s more.
RUN_BOUND = RETRY_BOUND + 90
CASES = 4
JUDGE_MATRIX = str(Path(sys.executable).parent / "judge-matrix")


def attempts_and_requests(
    log_dir: Path, requests: Counter[SampleKey], logged: set[SampleKey]
) -> Iterator[tuple[int | None, int]]:
    """Per sample of every log: the attempts its error states (None: cancelled when the run
    stopped) and the requests the server received for it, adding each sample to `logged`.
    Every sample must have errored."""
    logs = sorted(log_dir.glob("*.eval"))
    assert logs
    for path in logs:
        log = read_eval_log(path)
        assert log.status == "error", "fail_on_error stops a run whose judge is unreachable"
        prompt = (log.eval.metadata or {})["prompt_sha256"]
        for sample in log.samples or []:
            assert sample.error is not None and not sample.scores, f"{sample.id} was scored"
            stated = ATTEMPTS.search(sample.error.message)
            key = (str(sample.id), prompt)
            logged.add(key)
            yield (int(stated.group(1)) if stated else None), requests[key]


def check_attempts(log_dir: Path, handler: type[Refusing]) -> None:
    """The default bound held, and each stated count of attempts is the server's count."""
    requests = handler.requests()
    logged: set[SampleKey] = set()
    seen = list(attempts_and_requests(log_dir, requests, logged))
    stated = [(attempts, counted) for attempts, counted in seen if attempts is not None]
    assert stated, "the sample that stopped the run states its attempts"
    assert all(attempts == counted == DEFAULT_MAX_RETRIES + 1 for attempts, counted in stated)
    assert all(1 <= counted <= DEFAULT_MAX_RETRIES + 1 for _, counted in seen)
    # A sample in flight when fail_on_error stopped the run may be missing from the log (how
    # many is a matter of timing); its requests are still within the bound, and nothing else
    # (no probe, no SDK retry) reached the server.
    unlogged = [n for key, n in requests.items() if key not in logged]
    assert all(1 <= n <= DEFAULT_MAX_RETRIES + 1 for n in unlogged), "no other request"
    assert handler.longest_retrying() <= RETRY_BOUND


@pytest.mark.subprocess
def test_inspect_eval_errors_every_sample_of_a_dead_endpoint_within_the_bound(
    tmp_path: Path,
) -> None:
    write_cases(tmp_path / "cases.jsonl", CASES)
    handlers: list[type[Refusing]] = [Unavailable, RateLimited]
    with serving(Unavailable) as unavailable, serving(RateLimited) as rate_limited:
        for handler in handlers:
            handler.arrivals.clear()
        runs = inspect_eval(
            [
                [
                    *("--model", "openai-api/local/m", "--model-base-url", url),
                    *("-T", f"dataset={tmp_path / 'cases.jsonl'}"),
                    *("--log-dir", str(tmp_path / handler.__name__)),
                ]
                for handler, url in zip(handlers, [unavailable, rate_limited], strict=True)
            ],
            env={"LOCAL_API_KEY": "none"},
            # A run still retrying by then fails the test with TimeoutExpired.
            timeout=RUN_BOUND,
        )
    for handler, run in zip(handlers, runs, strict=True):
        assert any("gave up after" in line for line in run.lines), run.stdout + run.stderr
        check_attempts(tmp_path / handler.__name__, handler)


@pytest.mark.subprocess
def test_max_retries_on_the_command_line_overrides_the_task_and_counts_requests(
    tmp_path: Path,
) -> None:
    write_cases(tmp_path / "cases.jsonl", 1)
    with serving(Unavailable) as openai_url, serving(Overloaded) as anthropic_url:
        Unavailable.arrivals.clear()
        Overloaded.arrivals.clear()
        runs = inspect_eval(
            [
                [
                    *("--model", model, "--model-base-url", url, "--max-retries", "1"),
                    *("-T", f"dataset={tmp_path / 'cases.jsonl'}"),
                    *("--log-dir", str(tmp_path / name)),
                ]
                for name, model, url in [
                    ("openai", "openai-api/local/m", openai_url),
                    # Anthropic's SDK appends /v1/messages to its base URL itself.
                    (
                        "anthropic",
                        "anthropic/claude-3-5-haiku-latest",
                        anthropic_url.removesuffix("/v1"),
                    ),
                ]
            ],
            env={"LOCAL_API_KEY": "none", "ANTHROPIC_API_KEY": "sk-ant-dummy-standin"},
        )
    handlers: list[type[Refusing]] = [Unavailable, Overloaded]
    for name, handler, run in zip(["openai", "anthropic"], handlers, runs, strict=True):
        seen = list(attempts_and_requests(tmp_path / name, handler.requests(), set()))
        assert seen == [(2, 2)], run.stdout + run.stderr


@pytest.mark.subprocess
def test_judge_matrix_errors_every_sample_of_a_dead_endpoint_within_the_bound(
    tmp_path: Path,
) -> None:
    write_cases(tmp_path / "cases.jsonl", CASES)
    with serving(Unavailable) as url:
        Unavailable.arrivals.clear()
        done = subprocess.run(
            [
                *(JUDGE_MATRIX, "--model", "openai-api/local/m", "--model-base-url", url),
                *("-T", f"dataset={tmp_path / 'cases.jsonl'}", "--log-dir", str(tmp_path / "m")),
            ],
            cwd=REPO_ROOT,
            env={**os.environ, "LOCAL_API_KEY": "none"},
            capture_output=True,
            text=True,
            # The versions run side by side, each stopped by its first sample to give up.
            timeout=RUN_BOUND,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(list((tmp_path / "m").glob("*.eval"))) == 3, "one run per prompt version"
    check_attempts(tmp_path / "m", Unavailable)


@pytest.mark.subprocess
def test_judge_matrix_takes_retry_options_and_model_args(tmp_path: Path) -> None:
    write_cases(tmp_path / "cases.jsonl", 1)
    with serving(Unavailable) as url:
        Unavailable.arrivals.clear()
        done = subprocess.run(
            [
                *(JUDGE_MATRIX, "--model", "openai-api/local/m", "--model-base-url", url),
                # The key as a model argument: without it (no LOCAL_API_KEY) nothing runs.
                *("-M", "api_key=none", "--versions", "v3"),
                *("--max-retries", "1", "--timeout", "60"),
                *("-T", f"dataset={tmp_path / 'cases.jsonl'}", "--log-dir", str(tmp_path / "m")),
            ],
            cwd=REPO_ROOT,
            env={k: v for k, v in os.environ.items() if k != "LOCAL_API_KEY"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    seen = list(attempts_and_requests(tmp_path / "m", Unavailable.requests(), set()))
    assert seen == [(2, 2)], done.stdout + done.stderr
    (log,) = (read_eval_log(p, header_only=True) for p in (tmp_path / "m").glob("*.eval"))
    assert (log.plan.config.max_retries, log.plan.config.timeout) == (1, 60)
