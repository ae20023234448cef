"""The architecture's contracts hold, and each one fails on a violation planted in a copy."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli import REPO_ROOT

SCRIPTS = REPO_ROOT / "scripts"
# (file under the laid-out package, line appended, what lint-imports must name)
PLANTED = [
    ("core/escaping.py", "import farejudge.comparison.cli", "Layers: the stages above"),
    ("scorers/claims.py", "import farejudge.evals.render", "Layers: the stages above"),
    ("comparison/logs/frame.py", "import farejudge.comparison.figures", "The comparison's stages"),
    (
        "comparison/report/sections.py",
        "import farejudge.comparison.report.html",
        "The report's renderers",
    ),
    ("evals/render.py", "import inspect_ai._util.error", "Inspect's private modules"),
    ("scorers/verdict.py", "from inspect_ai.model._model import Model", "Inspect's private"),
]


def _lint(view: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), str(REPO_ROOT / "pyproject.toml")],
        cwd=view,
        env={"PYTHONPATH": str(SCRIPTS), "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package laid out as scripts/lint_imports.py lays it out, in a folder of its own."""
    sys.path.insert(0, str(SCRIPTS))
    try:
        import package_view
    finally:
        sys.path.remove(str(SCRIPTS))
    root = tmp_path_factory.mktemp("view")
    package_view.lay_out(package_view.package_dirs(), root)
    return root


@pytest.mark.subprocess
def test_the_contracts_hold_on_the_package(view: Path) -> None:
    done = _lint(view)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.subprocess
@pytest.mark.parametrize(("module", "line", "contract"), PLANTED)
def test_a_planted_violation_breaks_its_contract(
    view: Path, module: str, line: str, contract: str
) -> None:
    target = view / "farejudge" / module
    kept = target.read_text(encoding="utf-8")
    try:
        target.write_text(f"{kept}\n{line}\n", encoding="utf-8")
        done = _lint(view)
    finally:
        target.write_text(kept, encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    broken = done.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, done.stdout
