"""The labelling page in a real headless Chromium: a running server and a selection in it."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from farejudge.labelling.label_server import LabelServer, serve
from tests.cli import REPO_ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = Path("/usr/bin/chromium")
GUIDE = REPO_ROOT / "datasets" / "README.md"


@contextmanager
def browser_page() -> Iterator["Page"]:
    """A page in headless Chromium; the test is skipped where Playwright or Chromium is missing.

    Playwright's sync API runs an event loop while the page is open: an Inspect `eval()` must
    wait until it is closed.
    """
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.set_default_timeout(5000)
            yield page
        finally:
            browser.close()


@contextmanager
def running(drafts: Path, labels: Path, annotator: str, port: int = 0) -> Iterator[LabelServer]:
    server = serve(drafts, labels, annotator, port, GUIDE)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def select_range(page: "Page", needle: str) -> None:
    """Select `needle` with a DOM Range over the answer's text node."""
    page.evaluate(
        """(needle) => {
            const node = document.getElementById("answer").firstChild;
            const range = new Range();
            range.setStart(node, node.data.indexOf(needle));
            range.setEnd(node, node.data.indexOf(needle) + needle.length);
            getSelection().removeAllRanges();
            getSelection().addRange(range);
        }""",
        needle,
    )
