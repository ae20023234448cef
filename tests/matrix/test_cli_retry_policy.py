"""judge-matrix against a dead endpoint: every version's samples error within the retry
policy's bound, and its retry options and model arguments reach each run.

In a file of its own so that pytest-xdist runs these beside the `inspect eval` ones: each
waits out Inspect's real back-off.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import REPO_ROOT
from tests.support.json_server import serving
from tests.support.retry_checks import RUN_BOUND, attempts_and_requests, check_attempts
from tests.support.standins.outages import Unavailable

CASES = 4
JUDGE_MATRIX = str(Path(sys.executable).parent / "judge-matrix")


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
