"""mypy over the package under its import name, `farejudge`, with the paths of the files you edit.

mypy names a module after its folders, and the package's folders are not named after its
subpackages: `evals/` is `farejudge.evals` through `[tool.setuptools.package-dir]` in
pyproject.toml, and mypy can follow neither that table nor the import hook an editable
install uses. So this lays the mapped folders out as the package under build/typecheck/
(copies, not links, so it works in any clone on any OS), runs mypy with the project's own
configuration (which checks that view, tests/, benchmarks/ and scripts/), and prints mypy's
findings with each path turned back into the file in the checkout.

Usage:
    python scripts/typecheck.py [mypy options]

Exit status: mypy's.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from contextlib import chdir
from pathlib import Path

from mypy import api

ROOT = Path(__file__).resolve().parent.parent
VIEW = Path("build", "typecheck")
"""Relative to ROOT, as mypy's configuration names it and as mypy prints its paths."""


def package_dirs() -> dict[str, str]:
    """Each subpackage's folder, as setuptools reads it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return mapping


def lay_out(mapping: dict[str, str]) -> dict[str, str]:
    """Copy every mapped folder's Python files to where the package has them.

    Returns each view folder's path prefix and the checkout folder it stands for. copy2 keeps
    modification times, so mypy's incremental cache still knows an unchanged file.
    """
    shutil.rmtree(ROOT / VIEW, ignore_errors=True)
    prefixes: dict[str, str] = {}
    for package, folder in mapping.items():
        target = VIEW.joinpath(*package.split("."))
        for source in sorted((ROOT / folder).rglob("*.py")):
            copied = ROOT / target / source.relative_to(ROOT / folder)
            copied.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copied)
        prefixes[f"{target.as_posix()}/"] = f"{Path(folder).as_posix()}/"
    return prefixes


def in_checkout(text: str, prefixes: dict[str, str]) -> str:
    """mypy's report with every view path replaced by the checkout path it was copied from."""
    # Longest prefix first: farejudge/ must not claim farejudge/evals/ before it is matched.
    for view, checkout in sorted(prefixes.items(), key=lambda item: -len(item[0])):
        text = text.replace(view, checkout).replace(view.replace("/", "\\"), checkout)
    return text


def main(argv: list[str]) -> int:
    prefixes = lay_out(package_dirs())
    # mypy resolves its configuration and file paths against the working directory.
    with chdir(ROOT):
        stdout, stderr, status = api.run(argv)
    sys.stdout.write(in_checkout(stdout, prefixes))
    sys.stderr.write(in_checkout(stderr, prefixes))
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
