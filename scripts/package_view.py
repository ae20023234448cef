"""The package laid out under its import name, for tools that cannot follow setuptools' mapping.

The package's folders are not named after its subpackages: `evals/` is `farejudge.evals`
through `[tool.setuptools.package-dir]` in pyproject.toml, and neither mypy nor import-linter
(nor grimp under it) can follow that table or the import hook an editable install uses. So
this copies the mapped folders' Python files to where the package has them (copies, not
links, so it works in any clone on any OS). It imports nothing but the standard library, so
each tool's script needs only its own tool.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEW = Path("build", "typecheck")
"""Relative to ROOT, as mypy's configuration names it and as mypy prints its paths."""


def package_dirs() -> dict[str, str]:
    """Each subpackage's folder, as setuptools reads it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def lay_out(mapping: dict[str, str], view: Path = ROOT / VIEW) -> dict[str, str]:
    """Copy every mapped folder's Python files to where the package has them, under `view`.

    Returns each view folder's path prefix (relative to ROOT when `view` is the default) and
    the checkout folder it stands for. copy2 keeps modification times, so mypy's incremental
    cache still knows an unchanged file.
    """
    shutil.rmtree(view, ignore_errors=True)
    prefixes: dict[str, str] = {}
    for package, folder in mapping.items():
        target = view.joinpath(*package.split("."))
        for source in sorted((ROOT / folder).rglob("*.py")):
            copied = target / source.relative_to(ROOT / folder)
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copied)
        shown = target.relative_to(ROOT) if target.is_relative_to(ROOT) else target
        prefixes[f"{shown.as_posix()}/"] = f"{Path(folder).as_posix()}/"
    return prefixes
