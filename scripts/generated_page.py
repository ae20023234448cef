"""A docs page generated from the code: rewritten whole, or checked, naming why it is stale."""

from __future__ import annotations

import difflib
import os
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def check_or_write(
    page: Path,
    text: str,
    *,
    check: bool,
    difference: Callable[[str, str], str | None],
    command: str,
) -> int:
    """With `check`, 1 and one line on stderr when the page is not `text` (the line names
    `difference(text, page)` and the `command` that rewrites it), else 0; without, write the
    page (atomically: a reader sees the old page or the new one) and return 0."""
    shown = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)
    if check:
        current = page.read_text(encoding="utf-8") if page.exists() else ""
        problem = difference(text, current)
        if problem:
            print(f"{shown} is out of date ({problem}); run {command}", file=sys.stderr)
            return 1
        return 0
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=page.parent, suffix=".tmp", delete=False
    ) as out:
        out.write(text)
    os.replace(out.name, page)
    print(f"wrote {shown}")
    return 0


def replace_between(text: str, begin: str, end: str, body: str, where: str) -> str:
    """`text` with what lies between its `begin` and `end` markers replaced by `body` (the
    markers kept, each on its own line); exits naming `where` when a marker is missing."""
    head, found_begin, rest = text.partition(begin)
    _, found_end, tail = rest.partition(end)
    if not found_begin or not found_end:
        raise SystemExit(f"{where} has no generated block: add {begin} ... {end}")
    return f"{head}{begin}\n{body}\n{end}{tail}"


def first_difference(expected: str, actual: str) -> str | None:
    """None when the texts agree, else, in one line, the first line the code writes and the
    page lacks (or, if none, the first line the page has and the code no longer writes)."""
    changed = [
        line
        for line in difflib.unified_diff(actual.splitlines(), expected.splitlines(), lineterm="")
        if line.startswith(("+", "-")) and not line.startswith(("+++", "---"))
    ]
    for mark, side in (("+", "the code writes"), ("-", "the page has, the code does not")):
        for line in changed:
            if line.startswith(mark):
                return f"{side} {line[1:].strip()[:160]!r}"
    return None if expected == actual else "whitespace differs"


def write_blocks(
    page: Path, blocks: Sequence[tuple[str, str, str]], *, check: bool, command: str
) -> int:
    """`check_or_write` of the page with each `(begin, end, body)` written between its markers,
    a stale page named by the first line that differs."""
    shown = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else str(page)
    text = page.read_text(encoding="utf-8")
    for begin, end, body in blocks:
        text = replace_between(text, begin, end, body, shown)
    return check_or_write(page, text, check=check, difference=first_difference, command=command)
