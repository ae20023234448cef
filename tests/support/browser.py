"""The labelling page in a real headless Chromium: a running server and a selection in it."""

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest

from farejudge.core.case_schema import AnnotatorKind
from farejudge.labelling.label_http import LabelServer
from farejudge.labelling.label_server import serve
from tests.support.cli import REPO_ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Page

CHROMIUM = Path("/usr/bin/chromium")
GUIDE = REPO_ROOT / "datasets" / "README.md"
# CI claims to run every test: there a missing browser is a broken machine, not a reason to skip.
IN_CI = os.environ.get("CI", "").lower() in {"true", "1"}


def no_browser(reason: str) -> NoReturn:
    if IN_CI:
        pytest.fail(
            f"{reason}, and CI={os.environ['CI']} requires the browser tests to run "
            "(.ci/run installs Chromium with apt-get; Playwright comes with the dev extra)",
            pytrace=False,
        )
    pytest.skip(reason)


@contextmanager
def browser_page() -> Iterator["Page"]:
    """A page in headless Chromium; where Playwright or Chromium is missing the test is skipped,
    or fails under CI.

    Playwright's sync API runs an event loop while the page is open: an Inspect `eval()` must
    wait until it is closed.
    """
    try:
        from playwright import sync_api
    except ImportError:
        no_browser("playwright is not installed")
    if not CHROMIUM.exists():
        no_browser(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.set_default_timeout(5000)
            yield page
        finally:
            browser.close()


@contextmanager
def running(
    drafts: Path, labels: Path, annotator: str, port: int = 0, kind: AnnotatorKind | None = None
) -> Iterator[LabelServer]:
    server = serve(drafts, labels, annotator, port, GUIDE, kind)
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
