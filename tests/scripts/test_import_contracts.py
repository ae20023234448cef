"""The architecture's contracts hold, and each one fails on a violation planted in a copy."""

import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import grimp
import pytest

from tests.support.cli import REPO_ROOT
from tests.support.scripts import SCRIPTS, load

PROJECT_CONFIG = REPO_ROOT / "pyproject.toml"

# (file under the laid-out package, line appended, what lint-imports must name)
PLANTED = [
    ("core/escaping.py", "import farejudge.comparison.cli", "Layers: the stages above"),
    ("scorers/claims.py", "import farejudge.evals.render", "Layers: the stages above"),
    ("providers/capabilities.py", "import farejudge.scorers.graded", "Layers: the stages above"),
    ("comparison/logs/frame.py", "import farejudge.comparison.cases", "The comparison's stages"),
    (
        "comparison/stats/bootstrap.py",
        "import farejudge.comparison.verdicts.figures",
        "The comparison's stages",
    ),
    (
        "comparison/verdicts/sections.py",
        "import farejudge.shared.document.html",
        "The report's renderers",
    ),
    (
        "shared/document/html.py",
        "import farejudge.shared.document.png",
        "The renderers read the document model alone",
    ),
    ("shared/document/model.py", "import farejudge.comparison.cases", "Layers: the stages above"),
    ("shared/logs/headers.py", "import farejudge.shared.document.model", "The shared layer"),
    ("audit/stats/ppi.py", "import farejudge.comparison.stats.intervals", "The audit imports no"),
    ("audit/stats/ppi.py", "import farejudge.audit.record.schema", "The audit: its verbs"),
    ("audit/inputs/picked.py", "import farejudge.audit.sample.sampling", "The audit: its verbs"),
    ("audit/sample/sampling.py", "import farejudge.audit.plan.command", "The audit: its verbs"),
    ("evals/render.py", "import inspect_ai._util.error", "Inspect's private modules"),
    ("scorers/verdict.py", "from inspect_ai.model._model import Model", "Inspect's private"),
    # A cycle inside one folder, which no layer contract sees: dataset -> render, here
    # render -> judge_groundedness, and judge_groundedness -> dataset.
    ("evals/render.py", "import farejudge.evals.judge_groundedness", "No import cycle anywhere"),
    ("scorers/verdict.py", "from scipy.special._ufuncs import _binom_sf", "Other packages'"),
    ("core/escaping.py", "import zipfile\nzipfile._get_decompressor", "Other packages'"),
]


def _lint(view: Path, config: Path = PROJECT_CONFIG) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports"), str(config)],
        cwd=view,
        env={"PYTHONPATH": str(SCRIPTS), "PATH": str(Path(sys.executable).parent)},
        capture_output=True,
        text=True,
    )


def _broken(done: subprocess.CompletedProcess[str]) -> str:
    """What lint-imports printed under its broken contracts, in one line per line."""
    return done.stdout.split("Broken contracts", 1)[-1]


@pytest.fixture(scope="module")
def contracts() -> ModuleType:
    return load(SCRIPTS, "import_contracts")


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package laid out as scripts/lint_imports.py lays it out, in a folder of its own."""
    package_view = load(SCRIPTS, "package_view")
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
    assert contract in _broken(done), done.stdout


@pytest.mark.subprocess
def test_a_module_in_no_layer_breaks_the_layer_check(view: Path) -> None:
    stray = view / "farejudge" / "comparison" / "stray.py"
    stray.write_text('"""A module no layer names."""\n', encoding="utf-8")
    try:
        done = _lint(view)
    finally:
        stray.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    assert "farejudge.comparison.stray is in no layer of 'The comparison's stages" in " ".join(
        _broken(done).split()
    )


@pytest.mark.subprocess
def test_an_exception_nothing_uses_breaks_the_contract(view: Path) -> None:
    headers = view / "farejudge" / "shared" / "logs" / "headers.py"
    kept = headers.read_text(encoding="utf-8")
    try:
        headers.write_text(kept.replace("zipfile._get_decompressor", "_decompressor"), "utf-8")
        done = _lint(view)
    finally:
        headers.write_text(kept, encoding="utf-8")
    assert done.returncode == 1, done.stdout + done.stderr
    broken = " ".join(_broken(done).split())
    assert "'farejudge.shared.logs.headers uses zipfile._get_decompressor' is used no more" in (
        broken
    )


@pytest.mark.subprocess
def test_a_cycle_planted_in_a_tiny_package_is_caught(tmp_path: Path) -> None:
    """The cycle check alone, on a package of its own: two modules of one folder importing
    each other, and a package whose __init__ imports a module that imports it back."""
    files = {
        "pkg/__init__.py": "",
        "pkg/room/__init__.py": "",
        "pkg/room/a.py": "from pkg.room import b\n",
        "pkg/room/b.py": "import pkg.room.a\n",
        "pkg/other/__init__.py": "from pkg.other import c\n",
        "pkg/other/c.py": "import pkg.other\n",
        "pkg/fine.py": "import pkg.room.a\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    config = tmp_path / "contracts.toml"
    config.write_text(
        textwrap.dedent(
            """\
            [tool.importlinter]
            root_packages = ["pkg"]
            contract_types = ["acyclic: import_contracts.AcyclicContract"]

            [[tool.importlinter.contracts]]
            name = "No cycle"
            type = "acyclic"
            source = "pkg"
            """
        ),
        encoding="utf-8",
    )
    done = _lint(tmp_path, config)
    assert done.returncode == 1, done.stdout + done.stderr
    broken = _broken(done)
    assert "- pkg.other -> pkg.other.c (l.1)\n- pkg.other.c -> pkg.other (l.1)" in broken
    assert "- pkg.room.a -> pkg.room.b (l.1)\n- pkg.room.b -> pkg.room.a (l.1)" in broken
    assert "pkg.fine" not in broken

    (tmp_path / "pkg/room/b.py").write_text("", encoding="utf-8")
    (tmp_path / "pkg/other/c.py").write_text("", encoding="utf-8")
    done = _lint(tmp_path, config)
    assert done.returncode == 0, done.stdout + done.stderr


def _graph(edges: list[tuple[str, str]]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in edges:
        graph.add_module(importer)
        graph.add_module(imported)
        graph.add_import(importer=importer, imported=imported, line_number=1, line_contents="x")
    return graph


def test_cycles_finds_each_ring_once_with_a_shortest_cycle(contracts: ModuleType) -> None:
    graph = _graph(
        [
            ("p.a", "p.b"),
            ("p.b", "p.c"),
            ("p.c", "p.a"),
            ("p.c", "p.b"),  # a shorter ring inside the same set
            ("p.d", "p.a"),  # into the ring, not part of it
            ("p.x.y", "p.x.z"),
            ("p.x.z", "p.x.y"),
            ("q.m", "q.n"),  # another package, not checked
            ("q.n", "q.m"),
        ]
    )
    assert contracts.cycles(graph, "p") == [
        (["p.a", "p.b", "p.c"], ["p.a", "p.b", "p.c", "p.a"]),
        (["p.x.y", "p.x.z"], ["p.x.y", "p.x.z", "p.x.y"]),
    ]
    assert contracts.cycles(_graph([("p.a", "p.b"), ("p.b", "p.c")]), "p") == []


@pytest.mark.parametrize(
    ("source", "uses"),
    [
        ("from scipy.special._ufuncs import cdf\n", [("scipy.special._ufuncs.cdf", 1)]),
        ("from scipy.special import _ufuncs as u\n", [("scipy.special._ufuncs", 1)]),
        ("import numpy._core.umath\n", [("numpy._core.umath", 1)]),
        ("import zipfile\n\nzipfile._get_decompressor = f\n", [("zipfile._get_decompressor", 3)]),
        ("import os.path as p\nx = p._joinrealpath\n", [("os.path._joinrealpath", 2)]),
        ("from inspect_ai import model\nmodel._x.y\n", [("inspect_ai.model._x", 2)]),
        # Not private, or not another package's:
        ("from __future__ import annotations\nimport os\nos.__name__\n", []),
        ("from farejudge.core import _shared\nimport farejudge\nfarejudge._x\n", []),
        ("from . import _sibling\n", []),
        ("class A:\n    _x = 1\n\nA._x\nself_._y = 2\n", []),
        ("import zipfile\nzipfile.ZipFile\n", []),
    ],
)
def test_foreign_private_uses(
    contracts: ModuleType, tmp_path: Path, source: str, uses: list[tuple[str, int]]
) -> None:
    path = tmp_path / "module.py"
    path.write_text(source, encoding="utf-8")
    assert contracts.foreign_private_uses(path, ["farejudge"]) == uses


def test_layer_modules_reads_layers_as_import_linter_does(contracts: ModuleType) -> None:
    absolute = {"layers": ["p.a | p.b", "(p.c) : p.d", "p.e"]}
    assert contracts.layer_modules(absolute) == (["p"], {"p.a", "p.b", "p.c", "p.d", "p.e"})
    relative = {"layers": ["a", "b | c"], "containers": ["p.x", "p.y"]}
    assert contracts.layer_modules(relative) == (
        ["p.x", "p.y"],
        {"p.x.a", "p.x.b", "p.x.c", "p.y.a", "p.y.b", "p.y.c"},
    )


def test_lint_imports_runs_without_mypy() -> None:
    """The contracts' script needs import-linter alone: mypy, made unimportable, is not asked
    for (it used to import the type check's script)."""
    code = (
        "import sys; sys.modules['mypy'] = None; "
        f"sys.path.insert(0, {str(SCRIPTS)!r}); import lint_imports; print(lint_imports.main)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "function main" in done.stdout
