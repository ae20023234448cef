"""The repository's scripts (scripts/, benchmarks/), imported by the tests as they import each
other: from their own folder, first on the path."""

import importlib
import sys
from pathlib import Path
from types import ModuleType

from tests.support.paths import REPO_ROOT

SCRIPTS = REPO_ROOT / "scripts"
BENCHMARKS = REPO_ROOT / "benchmarks"


def load(folder: Path, name: str) -> ModuleType:
    """`name` imported from `folder`, with the folder on the path while it imports."""
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(folder))
