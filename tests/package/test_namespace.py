"""One import name, `farejudge`: the project installs beside a package called `evals`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from tests.support.cli import INSPECT, REPO_ROOT, TASK

STAND_IN = "a stand-in for OpenAI's evals package"


@pytest.mark.subprocess
def test_the_task_runs_beside_another_package_named_evals(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "evals").mkdir(parents=True)
    (site / "evals" / "__init__.py").write_text(f"WHOSE = {STAND_IN!r}\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(site)}

    # Outside the repository, `evals` is the other package, and the project is `farejudge`.
    probe = subprocess.run(
        [sys.executable, "-c", "import evals, farejudge.evals as ours; print(evals.WHOSE)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == STAND_IN

    # The task, as the README runs it, on one case with the embedded offline judge.
    run = subprocess.run(
        [INSPECT, "eval", TASK, "--limit", "1", "--log-dir", str(tmp_path / "logs")],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (log_file,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(log_file)
    assert log.status == "success" and log.samples and log.samples[0].scores
