"""The suite fails when a process one of its tests started is still running at its end, names
it, and kills it (tests/conftest.py)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import REPO_ROOT

LEAKING_TEST = """
import subprocess, sys

def test_starts_a_process_and_forgets_it():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)  # {mark}"])
"""


def suite_of(test_file: Path) -> "subprocess.CompletedProcess[str]":
    """`test_file` run as a suite of its own under this suite's conftest, in one process."""
    options = ["-p", "tests.conftest", "-p", "no:cacheprovider", "-q", "-n", "0"]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *options, str(test_file)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.subprocess
def test_a_process_left_running_fails_the_suite_and_is_killed(tmp_path: Path) -> None:
    mark = f"leftover-{os.getpid()}"
    (tmp_path / "test_leaking.py").write_text(LEAKING_TEST.format(mark=mark), encoding="utf-8")
    done = suite_of(tmp_path / "test_leaking.py")
    named = [line for line in done.stderr.splitlines() if mark in line]
    print(done.stderr.strip())
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout + done.stderr
    assert "1 process(es) the suite started are still running; killed:" in done.stderr
    assert len(named) == 1 and named[0].startswith("  pid ")
    pid = int(named[0].split()[1].rstrip(":"))
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and "State:\tZ" not in status_of(pid):
        assert time.monotonic() < deadline, f"pid {pid} is still running"
        time.sleep(0.1)


def status_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return "State:\tZ (gone)"


@pytest.mark.subprocess
def test_a_suite_that_stops_what_it_starts_passes(tmp_path: Path) -> None:
    (tmp_path / "test_tidy.py").write_text(
        "import subprocess, sys\n\n"
        "def test_waits():\n"
        "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n",
        encoding="utf-8",
    )
    done = suite_of(tmp_path / "test_tidy.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "still running" not in done.stderr
