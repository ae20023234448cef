"""A dead endpoint errors every sample within the retry policy's bound, and each sample's error
states the requests the server saw.

Without a bound, Inspect retries a failed call without end, and the OpenAI SDK retried twice
more under each of its attempts: against an always-503 stand-in, `inspect eval` was still
running after 90 s, 60 requests into 4 cases and no sample finished; with `--max-retries 1`
a sample's error said "gave up after 2 attempts" where the server had seen 6 requests (the
Anthropic SDK retries twice on its own as well).
"""

from pathlib import Path

import pytest

from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import inspect_eval
from tests.support.json_server import serving
from tests.support.retry_checks import RUN_BOUND, attempts_and_requests, check_attempts
from tests.support.standins.outages import Overloaded, RateLimited, Refusing, Unavailable

CASES = 4


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
            asleep=True,
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
