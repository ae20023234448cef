"""A docs page generated from the code: rewritten whole, or checked, naming why it is stale."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable
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
