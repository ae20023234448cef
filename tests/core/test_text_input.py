"""Paths shown as the user typed them (`shown`)."""

from pathlib import Path

import pytest

from farejudge.core.atomic_files import write_together
from farejudge.core.text_input import shown
from tests.support.kill_points import writing


def test_a_file_of_a_set_is_shown_by_its_path_not_its_generations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "via").symlink_to("real")
    write_together(tmp_path / "real" / "week", "sample", {"sample.json": writing("{}\n")})
    monkeypatch.chdir(tmp_path / "real")
    # The file's own link is kept (a set's file leads into its hidden folder); the folders
    # above it are resolved, so a path through another name of the working folder is relative.
    assert shown(Path("week/sample.json")) == "week/sample.json"
    assert shown(tmp_path / "via" / "week" / "sample.json") == "week/sample.json"
    assert shown(Path("/elsewhere/sample.json")) == "/elsewhere/sample.json"
