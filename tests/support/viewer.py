"""`inspect view` served on loopback, a log's sample list open in headless Chromium."""

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from inspect_ai.log import EvalLog

from tests.support.browser import browser_page
from tests.support.children import stop_process

if TYPE_CHECKING:
    from playwright.sync_api import Page

INSPECT = str(Path(sys.executable).parent / "inspect")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


@contextmanager
def sample_list(log: EvalLog, log_dir: Path) -> Iterator["Page"]:
    """The log's sample list in `inspect view`, served from `log_dir`."""
    port = free_port()
    viewer = subprocess.Popen(
        [INSPECT, "view", "--log-dir", str(log_dir), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/")
        with browser_page() as page:
            page.set_default_timeout(30_000)
            page.set_viewport_size({"width": 1280, "height": 800})
            page.goto(f"http://127.0.0.1:{port}/#/logs/{Path(log.location).name}/samples")
            yield page
    finally:
        stop_process(viewer, "inspect view", signal.SIGTERM, 10)
