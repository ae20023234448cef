"""A generated page is rewritten whole, or checked: 1 and one line naming what differs."""

from pathlib import Path

import pytest

from tests.support.scripts import SCRIPTS, load


def _first_line(expected: str, actual: str) -> str | None:
    return None if expected == actual else f"line {expected.splitlines()[0]!r}"


def test_check_or_write(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    generated = load(SCRIPTS, "generated_page")
    page = tmp_path / "page.md"
    common = {"difference": _first_line, "command": "python scripts/x.py"}

    assert generated.check_or_write(page, "new\n", check=True, **common) == 1
    assert f"{page} is out of date (line 'new'); run python scripts/x.py" in capsys.readouterr().err
    assert not page.exists()

    assert generated.check_or_write(page, "new\n", check=False, **common) == 0
    assert page.read_text(encoding="utf-8") == "new\n"
    assert list(tmp_path.iterdir()) == [page]  # no temporary file left beside it
    assert generated.check_or_write(page, "new\n", check=True, **common) == 0


def test_replace_between_keeps_the_markers_and_the_rest() -> None:
    generated = load(SCRIPTS, "generated_page")
    page = "# Title\n\nbefore\n\n<!-- b -->\nold\n<!-- e -->\n\nafter\n"
    assert generated.replace_between(page, "<!-- b -->", "<!-- e -->", "NEW", "page.md") == (
        "# Title\n\nbefore\n\n<!-- b -->\nNEW\n<!-- e -->\n\nafter\n"
    )
    with pytest.raises(SystemExit, match=r"page\.md has no generated block"):
        generated.replace_between("# Title\n", "<!-- b -->", "<!-- e -->", "NEW", "page.md")


def test_first_difference_names_the_first_line_added_else_removed() -> None:
    generated = load(SCRIPTS, "generated_page")
    assert generated.first_difference("a\nb\n", "a\nb\n") is None
    assert generated.first_difference("a\nc\nb\n", "a\nb\nd\n") == "the code writes 'c'"
    assert generated.first_difference("a\n", "a\nd\n") == "the page has, the code does not 'd'"
    assert generated.first_difference("a\n", "a\n\n") is not None
