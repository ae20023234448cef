"""`lint-imports` over the package as it installs, with the contracts in pyproject.toml.

import-linter finds a package's modules by walking its folder, and this package's folders are
not laid out under its name (`evals/` is `farejudge.evals`, through setuptools' package-dir).
So this lays the package out under build/typecheck/ (`package_view.py`, as the type check
does, without needing mypy), and runs `lint-imports` from there, with this folder on the path
for the project's own contract types (`import_contracts.py`).

Usage:
    python scripts/lint_imports.py [lint-imports options]

Exit status: lint-imports'.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from package_view import ROOT, VIEW, lay_out, package_dirs


def main(argv: list[str]) -> int:
    lay_out(package_dirs())
    scripts = str(Path(__file__).resolve().parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([scripts, os.environ.get("PYTHONPATH", "")])}
    lint = Path(sys.executable).parent / "lint-imports"
    # lint-imports puts its working folder first on the path: the laid-out package, not the
    # checkout's farejudge/ (which holds only the package's __init__).
    done = subprocess.run(
        [str(lint), str(ROOT / "pyproject.toml"), *argv], cwd=ROOT / VIEW, env=env, check=False
    )
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
