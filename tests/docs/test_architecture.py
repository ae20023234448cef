"""docs/architecture.md's diagrams are what scripts/architecture.py draws from the import graph,
and an import added across folders changes them; its layers are pyproject.toml's layers
contracts; its text names every folder of the package, and its table of what each folder owns
begins each package's row with the package's own docstring."""

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import grimp
import pytest

from tests.support.paths import REPO_ROOT
from tests.support.scripts import SCRIPTS, load

SCRIPT = SCRIPTS / "architecture.py"


@pytest.fixture(scope="module")
def architecture() -> ModuleType:
    return load(SCRIPTS, "architecture")


def first_difference(expected: str, actual: str) -> str | None:
    found: str | None = load(SCRIPTS, "generated_page").first_difference(expected, actual)
    return found


def _check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--check", *args], capture_output=True, text=True
    )


@pytest.mark.subprocess
def test_the_page_is_up_to_date() -> None:
    done = _check()
    assert done.returncode == 0, f"{done.stderr}; run python scripts/architecture.py"


@pytest.mark.subprocess
def test_an_import_added_across_folders_makes_the_page_stale(tmp_path: Path) -> None:
    package_view = load(SCRIPTS, "package_view")
    package_view.lay_out(package_view.package_dirs(), tmp_path)
    assert _check("--view", str(tmp_path)).returncode == 0
    intake = tmp_path / "farejudge" / "labelling" / "intake.py"
    intake.write_text(intake.read_text(encoding="utf-8") + "\nimport farejudge.matrix.cli\n")
    done = _check("--view", str(tmp_path))
    assert done.returncode == 1
    assert "docs/architecture.md is out of date" in done.stderr
    assert "matrix/" in done.stderr and "cli" in done.stderr, done.stderr


def _graph(edges: list[tuple[str, str]]) -> grimp.ImportGraph:
    graph = grimp.ImportGraph()
    for importer, imported in edges:
        for module in (importer, imported):
            parts = module.split(".")
            for depth in range(1, len(parts) + 1):
                graph.add_module(".".join(parts[:depth]))
        graph.add_import(importer=importer, imported=imported)
    return graph


EDGES = [
    ("pkg.core.errors", "pkg.core.text"),
    ("pkg.evals.dataset", "pkg.core.errors"),
    ("pkg.labelling.intake", "pkg.evals.dataset"),
    ("pkg.labelling.intake", "pkg.core.text"),
    ("pkg.comparison.cli", "pkg.comparison.report.html"),
    ("pkg.comparison.report.html", "pkg.comparison.stats.bootstrap"),
    ("pkg.comparison.panel.export", "pkg.labelling.intake"),
    ("pkg.comparison.panel.export", "pkg.evals.dataset"),
]


def test_the_diagrams_by_folder_and_by_feature(architecture: ModuleType) -> None:
    block = architecture.render(_graph(EDGES), "pkg", ["pkg.comparison"])
    assert block.startswith("\nBy folder:") and block.endswith("```\n")
    by_folder, by_feature = block.split("```text\n")[1:]
    assert by_folder.splitlines()[:5] == [
        "comparison/ ─┬─► labelling/  intake",
        "             └─► evals/      dataset",
        "labelling/  ─┬─► evals/      dataset",
        "             └─► core/       text",
        "evals/      ───► core/       errors",
    ]
    assert "core/           (imports no other folder)" in by_folder
    # Inside the feature's folder: its folders and modules, and what each takes from outside.
    assert by_feature.splitlines()[:6] == [
        "cli     ───► report/",
        "report/ ───► stats/",
        "panel/  ─┬─► labelling/  intake",
        "         └─► evals/      dataset",
        "stats/      (imports nothing else in comparison/ or outside it)",
        "```",
    ]


def test_an_import_across_folders_changes_the_diagram(architecture: ModuleType) -> None:
    before = architecture.render(_graph(EDGES), "pkg", ["pkg.comparison"])
    after = architecture.render(
        _graph([*EDGES, ("pkg.comparison.cli", "pkg.core.text")]), "pkg", ["pkg.comparison"]
    )
    assert first_difference(after, before) is not None
    assert "             └─► core/       text" in after.split("By feature")[0]
    assert "cli     ─┬─► report/\n         └─► core/       text" in after
    # An import inside one folder changes neither diagram.
    inside = architecture.render(
        _graph([*EDGES, ("pkg.evals.dataset", "pkg.evals.other")]), "pkg", ["pkg.comparison"]
    )
    assert first_difference(inside, before) is None


def test_the_layers_are_the_layers_contracts(architecture: ModuleType) -> None:
    config = {
        "tool": {
            "importlinter": {
                "contracts": [
                    {"name": "Top", "type": "layers", "layers": ["pkg.a", "pkg.b | pkg.c"]},
                    {"name": "Not layers", "type": "acyclic", "source": "pkg"},
                    {
                        "name": "Inside",
                        "type": "layers",
                        "containers": ["pkg.a"],
                        "layers": ["cli", "x : (y)"],
                    },
                ]
            }
        }
    }
    assert architecture.render_layers(config, "pkg").splitlines() == [
        "",
        "**Top**, from the top:",
        "",
        "1. `a`",
        "2. `b`, `c`",
        "",
        "**Inside**, inside `a`, from the top:",
        "",
        "1. `cli`",
        "2. `x`, `y` (which may import each other)",
    ]


def test_a_new_layer_makes_the_page_stale(architecture: ModuleType) -> None:
    page = PAGE.read_text(encoding="utf-8")
    config = architecture.contracts()
    assert architecture.render_layers(config) in page
    top = config["tool"]["importlinter"]["contracts"][0]
    top["layers"].insert(1, "farejudge.made_up")
    problem = first_difference(architecture.render_layers(config), page)
    assert problem is not None and "`made_up`" in problem


PAGE = REPO_ROOT / "docs" / "architecture.md"
FOLDER_CELL = re.compile(r"^\| `(?P<folder>[^`]+)` \| (?P<owns>.*) \|$")


def _package_dirs() -> dict[str, str]:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    return folders


def _section(heading: str) -> str:
    return PAGE.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1].split("\n## ")[0]


def _summary(package_folder: Path) -> str | None:
    """The first paragraph of the package's docstring, on one line; None for a data folder
    (no `__init__.py`)."""
    init = package_folder / "__init__.py"
    if not init.exists():
        return None
    docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8")))
    assert docstring, f"{init.relative_to(REPO_ROOT)} has no docstring: say what the folder owns"
    return " ".join(docstring.split("\n\n")[0].split())


def owned(table: str) -> dict[str, str]:
    """The table's rows: each folder (less its trailing slash) and what it owns."""
    rows = (FOLDER_CELL.match(line) for line in table.splitlines())
    return {row["folder"].rstrip("/"): row["owns"] for row in rows if row}


def row_problems(folders: dict[str, str], rows: dict[str, str], root: Path) -> list[str]:
    """Each package folder without its row in the table (a row may name a folder inside it,
    `prompts/judge_groundedness/`), or whose row does not begin with the first paragraph of
    the package's docstring."""
    problems = []
    for package, folder in folders.items():
        named = [f for f in rows if f == folder or f.startswith(f"{folder}/")]
        if not named:
            problems.append(f"`{folder}/` ({package}) has no row")
            continue
        summary = _summary(root / folder)
        owns = rows[named[0]]
        # The row may go on from the summary's last word: `…this project: which providers…`.
        if summary is not None and not owns.lower().startswith(summary.lower().rstrip(".")):
            problems.append(f"`{folder}/`'s row does not begin with its docstring: {summary!r}")
    return problems


def test_the_table_has_a_row_per_package_folder_from_its_docstring() -> None:
    assert row_problems(_package_dirs(), owned(_section("What each folder owns")), REPO_ROOT) == []


def test_a_folder_without_its_row_or_off_its_docstring_is_named(tmp_path: Path) -> None:
    (tmp_path / "made_up").mkdir()
    (tmp_path / "made_up" / "__init__.py").write_text('"""Made up on purpose.\n\nMore."""\n')
    (tmp_path / "data").mkdir()
    folders = {"pkg.made_up": "made_up", "pkg.data": "data"}
    table = "| `made_up/` | made up on purpose. And more. |\n| `data/cases/` | the cases |"
    assert row_problems(folders, owned(table), tmp_path) == []
    assert row_problems(folders, owned(table.replace("on purpose", "by hand")), tmp_path) == [
        "`made_up/`'s row does not begin with its docstring: 'Made up on purpose.'"
    ]
    assert row_problems({**folders, "pkg.new": "new"}, owned(table), tmp_path) == [
        "`new/` (pkg.new) has no row"
    ]


def test_the_path_of_the_data_names_every_subpackage_folder() -> None:
    text = _section("The path of the data")
    unnamed = [
        f"{folder}/"
        for package, folder in _package_dirs().items()
        if "." in package and f"`{folder}/`" not in text
    ]
    assert unnamed == []
