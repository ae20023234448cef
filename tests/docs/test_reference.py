"""docs/reference.md is what scripts/reference.py generates from the code, and would change
with a new flag."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "reference.py"
PAGE = ROOT / "docs" / "reference.md"


@pytest.fixture(scope="module")
def reference() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("reference_script", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs: its dataclasses look their module up by name.
    sys.modules[spec.name] = module
    # Its own folder on the path while it imports, as when it runs as a script.
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(SCRIPT.parent))
    yield module
    del sys.modules[spec.name]


@pytest.fixture(scope="module")
def commands(reference: ModuleType) -> list[object]:
    found: list[object] = reference.all_commands()
    return found


def test_the_page_is_up_to_date(reference: ModuleType, commands: list[object]) -> None:
    options, rest = reference.task_options()
    generated = reference.render(options, rest, commands)
    problem = reference.difference(generated, PAGE.read_text(encoding="utf-8"))
    assert problem is None, f"{problem}; run python scripts/reference.py"


def test_every_console_script_and_task_option_is_on_the_page(
    reference: ModuleType, commands: list[object]
) -> None:
    from importlib.metadata import distribution

    page = PAGE.read_text(encoding="utf-8")
    scripts = {
        entry.name
        for entry in distribution("farejudge").entry_points
        if entry.group == "console_scripts"
    }
    assert scripts, "the distribution declares its console scripts"
    for name in scripts:
        assert f"## `{name}`" in page
    assert "## `python -m farejudge.evals.metamorphic`" in page
    options, _ = reference.task_options()
    assert {"prompt_version", "dataset", "graded"} <= {option.name for option in options}
    for option in options:
        assert option.description, f"-T {option.name} has no description in the docstring"


def test_a_new_flag_changes_the_page(reference: ModuleType, commands: list[object]) -> None:
    options, rest = reference.task_options()
    before = reference.render(options, rest, commands)
    # Parsers caught afresh, so the one given a flag here is no other test's.
    fresh = reference.all_commands()
    command = fresh[0]
    command.parser.add_argument("--made-up-flag", metavar="N", help="a flag nobody documented")
    after = reference.render(options, rest, fresh)
    assert "--made-up-flag" in after and "--made-up-flag" not in before
    problem = reference.difference(after, before)
    assert problem is not None and "--made-up-flag" in problem
    assert command.invocation in problem


def test_a_new_task_option_changes_the_page(reference: ModuleType, commands: list[object]) -> None:
    def task(made_up: int = 3) -> None:
        """A task.

        Args:
            made_up: An option nobody documented
                on two lines.
        """

    options, rest = reference.task_options(task)
    assert [(o.name, o.default, o.description) for o in options] == [
        ("made_up", "3", "An option nobody documented on two lines.")
    ]
    page = reference.render(options, rest, commands)
    assert "| `made_up` | int | 3 | An option nobody documented on two lines. |" in page


def test_check_fails_with_one_line_naming_the_difference(
    reference: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    stale = tmp_path / "reference.md"
    text = PAGE.read_text(encoding="utf-8")
    stale.write_text(text.replace("| `--quiet` |", "| `--hushed` |"), encoding="utf-8")
    monkeypatch.setattr(reference, "OUT", stale)
    monkeypatch.setattr(reference, "ROOT", tmp_path)
    monkeypatch.setattr(reference, "build", lambda: text)
    assert reference.main(["--check"]) == 1
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1
    # The first section with a --quiet flag is named.
    assert "judge-audit estimate" in message and "--hushed" in message
