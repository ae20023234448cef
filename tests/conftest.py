"""Fixtures shared by several test files, and the `slow` mark the finer marks imply."""

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser import browser_page

if TYPE_CHECKING:
    from playwright.sync_api import Page

# What makes a test slow, each marked where the test is: `-m "not slow"` then leaves out
# every one of them without each test having to say `slow` too.
IMPLY_SLOW = ("model", "browser", "subprocess")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # tryfirst: the marks must be in place before `-m` deselects by them.
    for item in items:
        if any(item.get_closest_marker(name) for name in IMPLY_SLOW):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def page() -> Iterator["Page"]:
    with browser_page() as opened:
        yield opened
