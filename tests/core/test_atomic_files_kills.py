"""A set of files killed at each step of its write (issue 62): a reader, by the paths it always
used, sees the whole old set or the whole new one, never a mix; the next write of the set
removes what the killed one left.

Each drill prints how many kill points it tried."""

import os
from pathlib import Path

import pytest

from farejudge.core.atomic_files import Writer, write_text_atomic, write_together
from tests.support.kill_points import drill, held, set_leftovers, writing


def texts(**files: str) -> dict[str, Writer]:
    """Writers of the given texts, by file name (`a_md` is a.md)."""
    return {name.replace("_", "."): writing(text) for name, text in files.items()}


@pytest.mark.subprocess
def test_a_first_set_is_all_there_or_none_of_it(tmp_path: Path) -> None:
    new = texts(a_json="new json\n", a_md="new md\n", a_html="new page\n")
    result = drill(lambda: write_together(tmp_path, "a", new), tmp_path, set_leftovers("a"))
    held(result, "a first set")
    assert result.before == {}
    assert result.after == {"a.html": b"new page\n", "a.json": b"new json\n", "a.md": b"new md\n"}


@pytest.mark.subprocess
def test_a_set_replaces_the_previous_one_whole(tmp_path: Path) -> None:
    write_together(tmp_path, "a", texts(a_json="old json\n", a_md="old md\n", a_html="old\n"))
    (tmp_path / "notes.txt").write_text("the user's\n", encoding="utf-8")
    new = texts(a_json="new json\n", a_md="new md\n", a_html="new page\n")
    result = drill(lambda: write_together(tmp_path, "a", new), tmp_path, set_leftovers("a"))
    held(result, "a set over its previous one")
    assert result.before["a.md"] == b"old md\n" and result.after["a.md"] == b"new md\n"
    assert result.after["notes.txt"] == b"the user's\n"


@pytest.mark.subprocess
def test_files_of_the_writer_before_sets_and_its_temporaries(tmp_path: Path) -> None:
    """Regular files at the set's paths, and the temporaries a kill of the old writer left."""
    for name in ("a.json", "a.md", "a.html"):
        (tmp_path / name).write_text(f"old {name}\n", encoding="utf-8")
    (tmp_path / ".a.json.k2m9x1.tmp").write_text("half of a new one", encoding="utf-8")
    (tmp_path / ".a.html.p0q8z3.tmp").write_text("", encoding="utf-8")
    new = texts(a_json="new json\n", a_md="new md\n", a_html="new page\n")
    result = drill(lambda: write_together(tmp_path, "a", new), tmp_path, set_leftovers("a"))
    held(result, "a set over regular files")
    assert result.before == {n: f"old {n}\n".encode() for n in ("a.html", "a.json", "a.md")}


@pytest.mark.subprocess
def test_a_set_that_gains_and_loses_files(tmp_path: Path) -> None:
    write_together(tmp_path, "a", texts(a_json="old json\n", a_md="old md\n", a_csv="old,\n"))
    (tmp_path / "a.html").write_text("a regular file\n", encoding="utf-8")
    new = texts(a_json="new json\n", a_html="new page\n")
    result = drill(lambda: write_together(tmp_path, "a", new), tmp_path, set_leftovers("a"))
    held(result, "a set whose files change")
    assert sorted(result.before) == ["a.csv", "a.html", "a.json", "a.md"]
    assert result.after == {"a.html": b"new page\n", "a.json": b"new json\n"}


@pytest.mark.subprocess
def test_a_set_beside_another_leaves_the_other_alone(tmp_path: Path) -> None:
    write_together(tmp_path, "sample", texts(sample_json="{}\n", sample_drafts="d\n"))
    write_together(tmp_path, "audit", texts(audit_json="old\n", audit_md="old\n"))
    new = texts(audit_json="new\n", audit_md="new\n")
    result = drill(
        lambda: write_together(tmp_path, "audit", new),
        tmp_path,
        set_leftovers("sample", "audit"),
    )
    held(result, "a set beside another")
    assert result.after["sample.json"] == b"{}\n" and result.after["audit.md"] == b"new\n"
    assert os.readlink(tmp_path / "sample.json") == ".sample.set/current/sample.json"


@pytest.mark.subprocess
def test_the_drill_finds_the_mix_of_files_renamed_one_at_a_time(tmp_path: Path) -> None:
    """The writer before sets, each file renamed into place in turn: the drill sees its mix."""
    names = ("a.json", "a.md", "a.html")
    for name in names:
        (tmp_path / name).write_text(f"old {name}\n", encoding="utf-8")

    def one_at_a_time() -> None:
        for name in names:
            write_text_atomic(tmp_path / name, f"new {name}\n")

    result = drill(one_at_a_time, tmp_path, set_leftovers("a"))
    print(f"files renamed one at a time: mixed after {len(result.mixed())} of {result.kill_points}")
    assert result.kill_points == 4 * len(names)
    # Four steps a file (its folder made if missing, its temporary, the fsync, the rename):
    # killed after the first file's rename and up to the last's, old and new side by side.
    assert result.mixed() == list(range(5, 13))


def _hidden(folder: Path) -> list[str]:
    return sorted(name for name in os.listdir(folder) if name.startswith("."))


@pytest.mark.subprocess
def test_one_file_killed_at_each_step_and_the_next_write_sweeps_its_temporary(
    tmp_path: Path,
) -> None:
    """A single file (drafts, labels): the old file or the new one whole, and what a kill left
    beside it (and a temporary of the writer before these locks) gone after the next write."""
    target = tmp_path / "drafts.jsonl"
    target.write_text("old\n", encoding="utf-8")
    (tmp_path / ".drafts.jsonl.k2m9x1.tmp").write_text("half of a new one", encoding="utf-8")
    result = drill(lambda: write_text_atomic(target, "new\n"), tmp_path, _hidden)
    print(f"one file: killed at each of {result.kill_points} steps")
    assert result.kill_points >= 5
    assert result.mixed() == []
    assert result.after == {"drafts.jsonl": b"new\n"}
    assert result.next_runs == [result.after] * result.kill_points
    assert result.leftovers == [[]] * result.kill_points
