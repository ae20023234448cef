"""Run the real `inspect` command line from the repository root, several runs at once."""

import os
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# The console script next to this interpreter: a version-manager shim on PATH may need a HOME
# that a test has replaced.
INSPECT = str(Path(sys.executable).parent / "inspect")
TASK = "evals/judge_groundedness.py"


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
    runs: Sequence[Sequence[str]], env: dict[str, str] | None = None, timeout: float = 120
) -> list[Run]:
    """`inspect eval evals/judge_groundedness.py <args>` for each args list, run in parallel."""
    procs = [
        subprocess.Popen(
            [INSPECT, "eval", TASK, *args],
            cwd=REPO_ROOT,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in runs
    ]
    results = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=timeout)
        results.append(Run(proc.returncode, stdout, stderr))
    return results
