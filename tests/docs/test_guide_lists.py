"""The README's list of guides and the home page's table of them are the site's nav
(mkdocs.yml): every guide, in the nav's order, under the nav's title. The home page itself is
the nav's first entry and no item of either list (the escalation guide was missing from both
while the nav had it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import REPO_ROOT

MKDOCS = REPO_ROOT / "mkdocs.yml"
LISTS = (
    (REPO_ROOT / "README.md", "Documentation"),
    (REPO_ROOT / "docs" / "index.md", "Guides"),
)
LINK = re.compile(r"\[(?P<title>[^\]]+)\]\((?P<target>[^)\s#]+)\)")
SEPARATOR = re.compile(r"^\|[\s:|-]+\|$")

Guide = tuple[str, str]
"""A guide's title and its page, relative to the docs folder."""


def nav_guides(config: dict[str, Any]) -> list[Guide]:
    """The nav's pages in order, sections flattened, less the home page."""
    docs = REPO_ROOT / config.get("docs_dir", "docs")

    def walk(entries: list[Any]) -> list[Guide]:
        found: list[Guide] = []
        for entry in entries:
            ((title, value),) = entry.items()
            found += walk(value) if isinstance(value, list) else [(title, value)]
        return found

    home = docs / "index.md"
    return [(t, page) for t, page in walk(config["nav"]) if docs / page != home]


def section(text: str, heading: str) -> str:
    """The text under `## heading`, up to the next heading of that level."""
    _, found, rest = text.partition(f"\n## {heading}\n")
    assert found, f"no section '## {heading}'"
    return rest.split("\n## ", 1)[0]


def listed_guides(page: Path, heading: str, docs: Path = REPO_ROOT / "docs") -> list[Guide]:
    """The first link of each item of the section's list (`- ` lines) or table (body rows),
    as the title and the page it names relative to the docs folder."""
    found = []
    for line in section(page.read_text(encoding="utf-8"), heading).splitlines():
        item = line.startswith("- ") or (line.startswith("|") and not SEPARATOR.match(line))
        link = LINK.search(line) if item else None
        if link:
            target = (page.parent / link["target"]).resolve()
            found.append((link["title"], target.relative_to(docs.resolve()).as_posix()))
    return found


@pytest.fixture(scope="module")
def nav() -> list[Guide]:
    return nav_guides(yaml.safe_load(MKDOCS.read_text(encoding="utf-8")))


def test_the_nav_has_the_guides(nav: list[Guide]) -> None:
    assert ("Escalation with a guarantee", "escalation.md") in nav
    assert ("Home", "index.md") not in nav and len(nav) >= 10


@pytest.mark.parametrize(("page", "heading"), LISTS, ids=["README.md", "docs/index.md"])
def test_the_list_of_guides_is_the_nav(nav: list[Guide], page: Path, heading: str) -> None:
    assert listed_guides(page, heading) == nav


def test_a_guide_left_out_or_moved_is_seen(tmp_path: Path, nav: list[Guide]) -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if "(docs/escalation.md)" in line)
    (tmp_path / "docs").mkdir()
    page = tmp_path / "README.md"
    page.write_text(readme.replace(line + "\n", ""), encoding="utf-8")
    left_out = listed_guides(page, "Documentation", tmp_path / "docs")
    assert left_out != nav and ("Escalation with a guarantee", "escalation.md") not in left_out
    page.write_text(
        readme.replace(line + "\n", "").replace(
            "\n## Documentation\n", f"\n## Documentation\n\n{line}\n"
        ),
        encoding="utf-8",
    )
    moved = listed_guides(page, "Documentation", tmp_path / "docs")
    assert sorted(moved) == sorted(nav) and moved != nav


def test_nested_nav_sections_are_flattened() -> None:
    config = {"nav": [{"Home": "index.md"}, {"Guides": [{"A": "a.md"}, {"B": "b/c.md"}]}]}
    assert nav_guides(config) == [("A", "a.md"), ("B", "b/c.md")]
