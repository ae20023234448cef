"""Inspect's private symbols live in one module; an upgrade that moves one fails here by name."""

import ast
import importlib
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
INTERNALS = REPO_ROOT / "core" / "inspect_internals.py"
PRIVATE = re.compile(r"inspect_ai\._|inspect_ai\.\w+\._|\._ctx\b")
# Build output: copies of the project's code, or nothing of its own.
NOT_SOURCE = {"build", "dist"}


def source_dirs() -> list[Path]:
    """Every top-level folder with Python files in it, so a new code folder is searched too.

    A linked folder is searched where it lives (`rglob` follows no link), so none twice.
    """
    return [
        folder
        for folder in sorted(REPO_ROOT.iterdir())
        if folder.is_dir()
        and not folder.is_symlink()
        and not folder.name.startswith(".")
        and folder.name not in NOT_SOURCE
        and not folder.name.endswith(".egg-info")
        # A virtual environment in the checkout holds other projects' code.
        and not (folder / "pyvenv.cfg").exists()
        and any(folder.rglob("*.py"))
    ]


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


def test_the_search_covers_every_code_folder() -> None:
    # The folders there were when this was written; the search derives its list, so may add.
    known = {"core", "evals", "scorers", "providers", "comparison", "simulate", "labelling"}
    known |= {"tests", "benchmarks", "scripts"}
    assert known <= {folder.name for folder in source_dirs()}


def test_no_other_module_reaches_into_private_code() -> None:
    offenders = [
        f"{path.relative_to(REPO_ROOT)}:{n}: {line.strip()}"
        for folder in source_dirs()
        for path in sorted(folder.rglob("*.py"))
        if path not in (INTERNALS, Path(__file__).resolve())
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if PRIVATE.search(line)
    ]
    assert offenders == [], (
        f"Inspect's private symbols belong in {INTERNALS.relative_to(REPO_ROOT)}"
    )
