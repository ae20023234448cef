"""decision.json's one schema: no other class of the package reads or writes its `prefer`."""

import ast
import tomllib
from pathlib import Path

from tests.support.paths import REPO_ROOT


def _package_files() -> list[Path]:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = pyproject["tool"]["setuptools"]["package-dir"].values()
    return sorted(p for f in set(folders) if f for p in (REPO_ROOT / f).rglob("*.py"))


def test_only_the_schema_module_defines_a_class_with_the_decisions_prefer() -> None:
    defining = set()
    for path in _package_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                fields = {
                    s.target.id
                    for s in node.body
                    if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                }
                if "prefer" in fields:
                    defining.add(f"{path.relative_to(REPO_ROOT)}:{node.name}")
    # The schema, and what a task reads of it (a dataclass of the schema's own types).
    assert defining == {"core/decision_file.py:Decision", "evals/deployed_judge.py:Preferred"}
