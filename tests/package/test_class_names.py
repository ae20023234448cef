"""No two public classes of one stage share a name: in the audit, in the comparison and in
what they share, a class name says which class it is, wherever it is imported from."""

import ast
from collections import defaultdict
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

STAGES = ["audit", "comparison", "shared"]


def same_named(folder: Path) -> dict[str, list[str]]:
    """Each public class name defined more than once under `folder`, with where."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(folder.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                found[node.name].append(path.relative_to(folder).as_posix())
    return {name: where for name, where in found.items() if len(where) > 1}


@pytest.mark.parametrize("stage", STAGES)
def test_no_two_public_classes_of_a_stage_share_a_name(stage: str) -> None:
    assert same_named(REPO_ROOT / stage) == {}


def test_a_second_class_of_the_same_name_is_named(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.py").write_text("class Rate:\n    pass\n\nclass _Own:\n    pass\n")
    (tmp_path / "two.py").write_text("class Rate:\n    pass\n\nclass _Own:\n    pass\n")
    assert same_named(tmp_path) == {"Rate": ["a/one.py", "two.py"]}
