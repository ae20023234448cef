"""docs/architecture.md's diagrams are what scripts/architecture.py draws from the import graph,
and an import added across folders changes them."""

import subprocess
import sys
from pathlib import Path
from types import ModuleType

import grimp
import pytest

from tests.support.scripts import SCRIPTS, load

SCRIPT = SCRIPTS / "architecture.py"


@pytest.fixture(scope="module")
def architecture() -> ModuleType:
    return load(SCRIPTS, "architecture")


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
    assert block.startswith(architecture.BEGIN) and block.endswith(architecture.END)
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
    assert architecture.difference(after, before) is not None
    assert "             └─► core/       text" in after.split("By feature")[0]
    assert "cli     ─┬─► report/\n         └─► core/       text" in after
    # An import inside one folder changes neither diagram.
    inside = architecture.render(
        _graph([*EDGES, ("pkg.evals.dataset", "pkg.evals.other")]), "pkg", ["pkg.comparison"]
    )
    assert architecture.difference(inside, before) is None


def test_the_block_is_replaced_between_its_markers(architecture: ModuleType) -> None:
    page = f"# Title\n\nbefore\n\n{architecture.BEGIN}\nold\n{architecture.END}\n\nafter\n"
    assert architecture.with_block(page, "NEW") == "# Title\n\nbefore\n\nNEW\n\nafter\n"
    with pytest.raises(SystemExit, match="no generated block"):
        architecture.with_block("# Title\n", "NEW")
