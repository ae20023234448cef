"""`inspect view` on a metamorphic run, in headless Chromium: the sample list shows each derived
case's relation and parent as columns, as a reviewer sees them."""

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support.browser import browser_page
from tests.support.metamorphic_runs import run

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


@pytest.mark.browser
@pytest.mark.subprocess
def test_sample_list_shows_relation_and_parent_columns(tmp_path: Path) -> None:
    log = run(tmp_path, blind_to=None)
    port = free_port()
    viewer = subprocess.Popen(
        [INSPECT, "view", "--log-dir", str(tmp_path / "logs"), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(f"http://127.0.0.1:{port}/")
        with browser_page() as page:
            from playwright.sync_api import expect  # browser_page has skipped when it is missing

            page.set_default_timeout(30_000)
            name = Path(log.location).name
            page.goto(f"http://127.0.0.1:{port}/#/logs/{name}/samples")
            grid = page.locator("body")
            for header in ("Relation", "Derived from", "Outcome vs gold", "Rider's question"):
                expect(grid).to_contain_text(header)
            # Sorted by id, a gold case is followed by the cases derived from it.
            expect(grid).to_contain_text("conv-001~")
            expect(grid).to_contain_text("distractor_passage")
    finally:
        viewer.terminate()
        viewer.wait(timeout=10)
