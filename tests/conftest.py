"""Fixtures shared by several test files, the `slow` mark the finer marks imply, how many
pytest-xdist workers `-n auto` starts, and the check that the suite leaves no process behind."""

import contextlib
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

# The suite's workers take every core already, and OpenBLAS's own threads beside them spin
# while they wait for work, so the statistics tests cost more CPU with them
# (docs/performance.md#tests). Set before any worker or subprocess loads numpy (so nothing
# above imports it); the user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# Every `inspect eval` (and `judge-matrix`) process starts Inspect's control server, a FastAPI
# app for `inspect ctl`, which no test drives, at a share of each of the suite's cold runs
# (docs/performance.md#tests). The documented off switch; the user's own setting wins.
os.environ.setdefault("INSPECT_EVAL_CTL_SERVER", "false")

# Every process the suite starts inherits this mark, so the controller can list, once the suite
# is over, the ones still running.
SESSION_MARK = "FAREJUDGE_TEST_SESSION"

# What makes a test slow, each marked where the test is: `-m "not slow"` then leaves out
# every one of them without each test having to say `slow` too.
IMPLY_SLOW = ("model", "browser", "subprocess")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: the marks must be in place before `-m` deselects by them.
    for item in items:
        if any(item.get_closest_marker(name) for name in IMPLY_SLOW):
            item.add_marker(pytest.mark.slow)
    # The files with the most slow tests first, each file's tests in their own order: under
    # pytest-xdist (`--no-loadscope-reorder`) the long files then start early, and the quick
    # files fill the workers at the end instead of one long file running alone.
    slow = Counter(item.path for item in items if item.get_closest_marker("slow"))
    items.sort(key=lambda item: -slow[item.path])


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """One worker more than the CPUs: about two minutes of the suite is asleep (Inspect's real
    back-off against dead endpoints, servers), and a third worker on 2 cores fills it."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # the user's own count, which xdist reads
    cpus = os.cpu_count() or 1
    # The sleepers are all slow tests; without them the extra worker only costs its start-up
    # (the inner loop on 2 workers and on 3: docs/performance.md#tests).
    return cpus if "not slow" in config.option.markexpr else cpus + 1


@pytest.fixture
def page() -> Iterator["Page"]:
    from tests.support.browser import browser_page

    with browser_page() as opened:
        yield opened


@pytest.fixture
def gguf_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A model file for the gguf/ provider that is never loaded, and no native check of it.

    Path resolution only checks the file exists; the native check, which would load it in a
    child process, has its own tests in test_gguf_native.py.
    """
    monkeypatch.setattr("farejudge.providers.gguf.api.ensure_llama_runs", lambda *a, **k: None)
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def pytest_configure(config: pytest.Config) -> None:
    # The controller marks its session before it starts any worker; a worker keeps the mark it
    # inherited. A suite a test starts (a controller of its own) marks its own session, not
    # its parent's: a mark inherited from an outer suite would have it kill the outer workers.
    if not hasattr(config, "workerinput"):
        os.environ[SESSION_MARK] = f"{os.getpid()}-{time.time_ns()}"


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller fails the run if a process the suite started outlives it: a server no
    signal stopped, a child no test waited for. It names each one, then kills it."""
    if hasattr(session.config, "workerinput"):
        return
    from tests.support.children import leftovers

    # The workers themselves carry the mark until they have exited, a moment after the end.
    left = leftovers(SESSION_MARK, os.environ[SESSION_MARK], seconds=15)
    if not left:
        return
    lines = [f"  pid {pid}: {command}" for pid, command in sorted(left.items())]
    sys.stderr.write(
        f"\n{len(left)} process(es) the suite started are still running; killed:\n"
        + "\n".join(lines)
        + "\n"
    )
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
