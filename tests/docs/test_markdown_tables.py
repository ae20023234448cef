"""Every Markdown table in the guides (docs/), README.md and the dataset card is well formed.

A table is a run of lines that start with `|`, outside fenced code blocks: a header row, a
separator row (`| --- | --- |`), then rows, each with as many cells as the header (a pipe
inside a cell is escaped, `\\|`, as GitHub's tables require even in a code span). A blank line
comes before it and after it: a line of prose right after a row, with no blank line between,
is read as one more row of the table, so the paragraph disappears into it (docs/audit.md's last
table swallowed one). A separator row that does not start with `|` is a table written without
its leading pipes, which this check would not see: it is refused too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

PAGES = sorted(
    [
        *(REPO_ROOT / "docs").rglob("*.md"),
        REPO_ROOT / "README.md",
        REPO_ROOT / "datasets" / "README.md",
    ]
)
FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
SEPARATOR_CELL = re.compile(r"^\s*:?-{3,}:?\s*$")
UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")
COMMENT = re.compile(r"^\s*<!--.*-->\s*$")


def ends_a_block(line: str) -> bool:
    """A blank line, or a line that is one HTML comment (the markers around a generated table):
    GitHub and Python-Markdown end a table at either."""
    return not line.strip() or COMMENT.match(line) is not None


def cells(row: str) -> list[str]:
    """The cells of a table row: split on its unescaped pipes, less the outer ones."""
    inner = row.strip().removeprefix("|")
    if inner.endswith("|") and not inner.endswith("\\|"):
        inner = inner[:-1]
    return UNESCAPED_PIPE.split(inner)


def is_separator(row: str) -> bool:
    return "|" in row and all(SEPARATOR_CELL.match(cell) for cell in cells(row))


def outside_code(text: str) -> list[tuple[int, str]]:
    """The page's lines (1-based numbers) outside fenced code blocks; a fence's own lines and
    the lines inside it come back blank, so nothing on either side runs into a table."""
    lines: list[tuple[int, str]] = []
    open_fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        found = FENCE.match(line)
        if open_fence is None and found:
            open_fence = found["fence"]
        elif open_fence is not None and found and not found["info"].strip():
            # A fence closes on one of its own kind at least as long, with no info string.
            if found["fence"][0] == open_fence[0] and len(found["fence"]) >= len(open_fence):
                open_fence = None
        elif open_fence is None:
            lines.append((number, line))
            continue
        lines.append((number, ""))
    return lines


def table_problems(name: str, text: str) -> list[str]:
    """One line per problem, naming the page and line: a row whose cells are not the header's
    number, a table without its separator row, a line run into a table, a table with no blank
    line before it, a separator row without its leading pipe."""
    problems = []
    lines = outside_code(text)
    i = 0
    while i < len(lines):
        number, line = lines[i]
        if not line.lstrip().startswith("|"):
            if is_separator(line):
                problems.append(f"{name}:{number}: a table's separator row without a leading |")
            i += 1
            continue
        start = i
        while i < len(lines) and lines[i][1].lstrip().startswith("|"):
            i += 1
        rows = lines[start:i]
        if start > 0 and not ends_a_block(lines[start - 1][1]):
            problems.append(f"{name}:{number}: no blank line before the table")
        if len(rows) < 2 or not is_separator(rows[1][1]):
            problems.append(f"{name}:{number}: the table has no separator row under its header")
            continue
        width = len(cells(rows[0][1]))
        for row_number, row in rows[1:]:
            if len(cells(row)) != width:
                problems.append(
                    f"{name}:{row_number}: {len(cells(row))} cells in a table of {width} columns"
                )
        if i < len(lines) and not ends_a_block(lines[i][1]):
            problems.append(
                f"{name}:{lines[i][0]}: a line run into the table above it (no blank line "
                f"between): {lines[i][1].strip()[:60]!r}"
            )
    return problems


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO_ROOT).as_posix())
def test_every_table_is_well_formed(page: Path) -> None:
    name = page.relative_to(REPO_ROOT).as_posix()
    assert table_problems(name, page.read_text(encoding="utf-8")) == []


def test_the_pages_have_tables() -> None:
    found = [p for p in PAGES if any(is_separator(line) for _, line in outside_code(p.read_text()))]
    assert {"README.md", "docs/audit.md", "docs/architecture.md"} <= {
        p.relative_to(REPO_ROOT).as_posix() for p in found
    }


GOOD = """# Page

| a | b |
| --- | :---: |
| 1 | `x \\| y` |

Prose.
"""


def test_a_well_formed_table_passes() -> None:
    assert table_problems("page.md", GOOD) == []


@pytest.mark.parametrize(
    ("broken", "problem"),
    [
        (GOOD.replace("| 1 |", "| 1 | 2 |"), "page.md:5: 3 cells in a table of 2 columns"),
        (GOOD.replace("| --- | :---: |\n", ""), "page.md:3: the table has no separator row"),
        (GOOD.replace("| --- | :---: |", "| --- |"), "page.md:4: 1 cells in a table of 2"),
        (GOOD.replace("|\n\nProse", "|\nProse"), "page.md:6: a line run into the table above"),
        (GOOD.replace("# Page\n\n", "# Page\nIntro.\n"), "page.md:3: no blank line before"),
        (
            GOOD.replace(
                "| a | b |\n| --- | :---: |\n| 1 | `x \\| y` |", "a | b\n--- | ---\n1 | 2"
            ),
            "page.md:4: a table's separator row without a leading |",
        ),
        # An unescaped pipe in a code span splits the cell, as GitHub renders it.
        (GOOD.replace("x \\| y", "x | y"), "page.md:5: 3 cells in a table of 2 columns"),
    ],
)
def test_a_broken_table_is_named_by_page_and_line(broken: str, problem: str) -> None:
    found = table_problems("page.md", broken)
    assert len(found) == 1 and found[0].startswith(problem), found


def test_a_table_between_comment_markers_is_well_formed() -> None:
    page = "Intro.\n\n<!-- table:start -->\n| a |\n| --- |\n| 1 |\n<!-- table:end -->\nAfter.\n"
    assert table_problems("page.md", page) == []


def test_a_table_in_a_code_block_is_not_a_table() -> None:
    page = "Example:\n\n```markdown\n| a | b |\n| --- |\nnot a row\n```\nAfter.\n"
    assert table_problems("page.md", page) == []
    assert table_problems("page.md", page.replace("```markdown\n", "")) != []
