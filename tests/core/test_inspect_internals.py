"""Inspect's private symbols live in one module; an upgrade that moves one fails here by name.

That no other module imports them is a contract in pyproject.toml (`scripts/lint_imports.py`).
"""

import ast
import importlib

import pytest

from tests.support.paths import REPO_ROOT

INTERNALS = REPO_ROOT / "core" / "inspect_internals.py"


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
        pytest.fail(f"Inspect moved {module}.{name}: update {INTERNALS.relative_to(REPO_ROOT)}")
