"""Fixtures shared by several test files."""

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser import browser_page

if TYPE_CHECKING:
    from playwright.sync_api import Page


@pytest.fixture
def page() -> Iterator["Page"]:
    with browser_page() as opened:
        yield opened
