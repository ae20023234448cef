"""What a run against a dead endpoint must show: every sample errored within the retry
policy's bound, and each sample's stated attempts are the requests the server saw."""

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from inspect_ai.log import read_eval_log

from farejudge.evals.retry_policy import DEFAULT_MAX_RETRIES
from tests.support.standins.outages import Refusing, SampleKey

ATTEMPTS = re.compile(r"\(gave up after (\d+) attempts\)$")
# Inspect's backoff before retry k (from 1) is 3 * 2**(k-1) s plus up to 3 s of jitter.
MAX_WAIT = sum(3 * 2**k + 3 for k in range(DEFAULT_MAX_RETRIES))
# A sample's first request to its last, as the server sees them: the waits, and the requests
# themselves on a 2-core machine other jobs are loading.
RETRY_BOUND = MAX_WAIT + 10
# The whole command: Inspect's start-up and exit on such a machine, with room
# (docs/performance.md#tests).
RUN_BOUND = RETRY_BOUND + 90


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
