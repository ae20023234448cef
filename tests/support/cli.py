"""Run the real `inspect` command line from the repository root, several runs at once."""

import os
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from tests.support.paths import REPO_ROOT as REPO_ROOT

# The console script next to this interpreter: a version-manager shim on PATH may need a HOME
# that a test has replaced.
INSPECT = str(Path(sys.executable).parent / "inspect")
# Relative to REPO_ROOT, where the runs start: Inspect refuses an absolute task-file path.
TASK = "evals/judge_groundedness.py"


def task_file() -> str:
    """The task file as Inspect's `eval()` takes it, from whatever directory pytest runs in.

    Inspect refuses an absolute path ("Non-relative patterns are unsupported"), so this one is
    relative to the working directory, `..` and all.
    """
    return os.path.relpath(REPO_ROOT / TASK)


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        """What the user reads: the non-blank lines of both streams."""
        return [line for line in (self.stdout + self.stderr).splitlines() if line.strip()]


def inspect_eval(
    runs: Sequence[Sequence[str]],
    env: dict[str, str] | None = None,
    timeout: float = 120,
    asleep: bool = False,
    per_run_env: Sequence[dict[str, str]] | None = None,
) -> list[Run]:
    """`inspect eval evals/judge_groundedness.py <args>` for each args list, in parallel;
    `env` added to every run's environment, and `per_run_env`'s items each to its own run's.

    At most one run per CPU at a time, each with `timeout` seconds of its own: a cold start
    of Inspect is CPU-bound, so more runs at once would only stretch every run towards a
    shared deadline on a small machine. Under pytest-xdist the CPUs are shared out among
    the workers. Runs that are `asleep` most of their time (waiting out Inspect's back-off)
    all start at once: side by side, two such runs take half as long as one after another
    (docs/performance.md#tests).
    """

    def one(args: Sequence[str], own_env: dict[str, str]) -> Run:
        done = subprocess.run(
            [INSPECT, "eval", TASK, *args],
            cwd=REPO_ROOT,
            env={**os.environ, **(env or {}), **own_env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return Run(done.returncode, done.stdout, done.stderr)

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    at_once = len(runs) if asleep else (os.cpu_count() or 1) // workers
    pool = ThreadPoolExecutor(max_workers=max(1, at_once))
    try:
        return list(pool.map(one, runs, per_run_env or [{}] * len(runs)))
    finally:
        # After a timeout, the runs not yet started are not worth their minutes.
        pool.shutdown(cancel_futures=True)
