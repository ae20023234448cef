"""mypy over the package under its import name, `farejudge`, with the paths of the files you edit.

mypy names a module after its folders, and the package's folders are not named after its
subpackages: `evals/` is `farejudge.evals` through `[tool.setuptools.package-dir]` in
pyproject.toml, and mypy can follow neither that table nor the import hook an editable
install uses. So this lays the mapped folders out as the package under build/typecheck/
(`package_view.py`), runs mypy with the project's own
configuration (which checks that view, tests/, benchmarks/ and scripts/), and prints mypy's
findings with each path turned back into the file in the checkout.

Usage:
    python scripts/typecheck.py [mypy options]

Exit status: mypy's.
"""

from __future__ import annotations

import sys
from contextlib import chdir

from mypy import api
from package_view import ROOT, lay_out, package_dirs


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
