"""Inspect's private symbols live in one module; an upgrade that moves one fails here by name."""

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
INTERNALS = REPO_ROOT / "core" / "inspect_internals.py"
PRIVATE = re.compile(r"inspect_ai\._|inspect_ai\.\w+\._|\._ctx\b")
SOURCE_DIRS = ["evals", "scorers", "providers", "comparison", "tests", "benchmarks", "scripts"]


def _private_imports() -> list[tuple[str, str]]:
    tree = ast.parse(INTERNALS.read_text(encoding="utf-8"))
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    ]


@pytest.mark.parametrize(("module", "name"), _private_imports())
def test_every_private_symbol_is_where_the_project_expects_it(module: str, name: str) -> None:
    try:
        found = hasattr(importlib.import_module(module), name)
    except ImportError:
        found = False
    if not found:
        pytest.fail(f"Inspect moved {module}.{name}: update evals/inspect_internals.py")


def test_no_other_module_reaches_into_private_code() -> None:
    offenders = [
        f"{path.relative_to(REPO_ROOT)}:{n}: {line.strip()}"
        for folder in SOURCE_DIRS
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        if path not in (INTERNALS, Path(__file__).resolve())
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert offenders == []
