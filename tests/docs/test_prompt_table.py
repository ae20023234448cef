"""docs/getting-started.md's table of prompt versions is what scripts/prompt_table.py writes
from the manifest, and a new version changes it."""

from __future__ import annotations

import tomllib
from pathlib import Path
from types import ModuleType

import pytest

from farejudge.evals.prompt_versions import MANIFEST, load_manifest
from tests.support.scripts import SCRIPTS, load


@pytest.fixture(scope="module")
def prompt_table() -> ModuleType:
    return load(SCRIPTS, "prompt_table")


def test_the_page_is_up_to_date(
    prompt_table: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert prompt_table.main(["--check"]) == 0, capsys.readouterr().err


def test_the_table_is_the_manifest(prompt_table: ModuleType) -> None:
    manifest = load_manifest()
    block = prompt_table.render(manifest)
    rows = [line for line in block.splitlines()[3:] if line.startswith("| ")]
    assert [row.split(" | ")[0].removeprefix("| ") for row in rows] == list(manifest.versions)
    assert "| v2 | not recorded | yes | no | no | `conv-004` | Admits the rider's prior" in block
    assert f"the current version ({manifest.current})" in block


def test_a_new_version_changes_the_page(
    prompt_table: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = MANIFEST.read_text(encoding="utf-8")
    current = tomllib.loads(text)["current"]
    v4 = (
        text.replace(f'current = "{current}"', 'current = "v4"')
        + '\n[versions.v4]\nfile = "v4.txt"\nchanged = "Made up | on *purpose* <here>."\n'
        'motivating_cases = ["a-001", "b-002"]\n\n[versions.v4.render]\nprior_turns = true\n'
        "passage_header = true\npassage_provenance = false\n"
    )
    (tmp_path / "manifest.toml").write_text(v4, encoding="utf-8")
    manifest = load_manifest(tmp_path / "manifest.toml")
    block = prompt_table.render(manifest)
    assert (
        "| v4 | not recorded | yes | yes | no | `a-001`, `b-002` "
        "| Made up \\| on \\*purpose\\* &lt;here&gt;. |"
    ) in block
    prose = " ".join(block.split())
    assert "`v3.txt`, `v4.txt` are exactly" in prose and "current version (v4)" in prose
    monkeypatch.setattr(prompt_table, "load_manifest", lambda: manifest)
    assert prompt_table.main(["--check"]) == 1
    message = capsys.readouterr().err.strip()
    assert len(message.splitlines()) == 1
    assert "docs/getting-started.md is out of date" in message and "| v4 |" in message
