"""Every shell block in README.md and docs/ is run by a test, or says why it is not.

The line right before the block's opening fence is one of:

    <!-- run by: test_readme_providers -->
    <!-- not run: needs a real API key -->

"run by" names a test module anywhere under tests/ by its basename (test files move between
folders), or by its path where the basename is not unique (`tests/audit/test_cli`); "not run"
gives a reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
SHELLS = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`\s]*)")
RUN_BY = re.compile(r"^<!--\s*run by:\s*(?P<test>\S+)\s*-->$")
NOT_RUN = re.compile(r"^<!--\s*not run:(?P<reason>.*?)-->$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    """1-based line of the opening fence."""
    language: str
    marker: str
    """The line before the fence, stripped."""

    @property
    def where(self) -> str:
        return (
            f"{self.path.relative_to(ROOT) if self.path.is_absolute() else self.path}:{self.line}"
        )


def fenced_blocks(path: Path, text: str) -> list[Block]:
    """Every fenced code block, with its language and the line before it."""
    blocks = []
    lines = text.splitlines()
    open_fence: str | None = None
    for number, line in enumerate(lines, start=1):
        found = FENCE.match(line)
        if open_fence is not None:
            # A block closes on a fence of its own kind at least as long, with no info string.
            closes = (
                found is not None
                and found["fence"][0] == open_fence[0]
                and len(found["fence"]) >= len(open_fence)
                and not found["info"]
            )
            if closes:
                open_fence = None
            continue
        if found:
            open_fence = found["fence"]
            before = lines[number - 2].strip() if number > 1 else ""
            blocks.append(Block(path, number, found["info"].lower(), before))
    return blocks


def problems(blocks: list[Block], test_modules: set[str]) -> list[str]:
    found = []
    for block in blocks:
        if block.language not in SHELLS:
            continue
        run_by, not_run = RUN_BY.match(block.marker), NOT_RUN.match(block.marker)
        if run_by and "/" in run_by["test"]:
            test = run_by["test"]
            if not (ROOT / f"{test}.py").is_file():
                found.append(f"{block.where}: 'run by: {test}': no {test}.py")
        elif run_by:
            test = run_by["test"]
            if not test.startswith("test_"):
                found.append(f"{block.where}: 'run by: {test}' is not a test module name")
            elif test not in test_modules:
                found.append(f"{block.where}: 'run by: {test}': no {test}.py under tests/")
        elif not_run:
            if len(not_run["reason"].split()) < 2:
                found.append(f"{block.where}: 'not run' needs a reason")
        else:
            found.append(
                f"{block.where}: a {block.language} block with neither "
                "'<!-- run by: TEST -->' nor '<!-- not run: REASON -->' on the line before it"
            )
    return found


def existing_test_modules() -> set[str]:
    return {path.stem for path in TESTS.rglob("test_*.py")}


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_shell_block_is_run_or_says_why_not() -> None:
    blocks = [
        block
        for path in documents()
        for block in fenced_blocks(path, path.read_text(encoding="utf-8"))
    ]
    assert any(b.language in SHELLS for b in blocks), "found no shell block at all"
    assert problems(blocks, existing_test_modules()) == []


SAMPLE = """\
<!-- run by: test_exists -->
```bash
echo run
```

<!-- run by: test_gone -->
```sh
echo gone
```

<!-- not run: -->
```shell
echo why
```

Text right before.
```console
$ echo bare
```

````markdown
```bash
echo inside another block, not a block of its own
```
````

```python
print("not a shell")
```

<!-- run by: tests/docs/test_shell_blocks -->
```bash
echo by its path
```

<!-- run by: tests/docs/test_gone -->
```bash
echo gone by its path
```
"""


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (7, "no test_gone.py under tests/"),
        (12, "'not run' needs a reason"),
        (17, "neither"),
        (37, "'run by: tests/docs/test_gone': no tests/docs/test_gone.py"),
    ],
)
def test_the_check_names_each_bad_block(line: int, says: str) -> None:
    found = problems(fenced_blocks(Path("sample.md"), SAMPLE), {"test_exists"})
    assert len(found) == 4, found
    assert any(p.startswith(f"sample.md:{line}: ") and says in p for p in found), found
