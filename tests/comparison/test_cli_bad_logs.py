"""judge-compare beside logs it cannot use: each named with why, the rest compared (issue 26).

Issue 26 found a zero-byte or truncated .eval stopping the whole comparison with "cannot read
the logs in bad: File is not a zip file", and a .json that is not a log, or a log of another
task, skipped without a word even when named on the command line.

The good logs are scripted mockllm runs of v2 and v3 that pass the gate: v3 fixes what v2
got wrong and breaks nothing.
"""

import json
import shutil
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from farejudge.comparison.cli import EXIT_GATE, EXIT_INPUT, EXIT_OK, run
from tests.support.scripted_cases import run_version, write_cases

V2 = {"fresh-001": "wrong", "t-silence": "wrong"}
MODEL = "mockllm/model"
LOG_NAME = "2026-01-01T00-00-0{}-00-00_judge-groundedness_{}.{}"
"""Named as Inspect names a log, so a folder's listing takes a .json one for a log."""


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The v2 and v3 logs, in a folder of their own."""
    root = tmp_path_factory.mktemp("good")
    cases = write_cases(root / "cases.jsonl")
    logs = {
        v: Path(run_version(v, s, cases, root / "logs").location)
        for v, s in (("v2", V2), ("v3", {}))
    }
    return logs


def folder_of(
    good: dict[str, Path], folder: Path, versions: tuple[str, ...] = ("v2", "v3")
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for version in versions:
        shutil.copy2(good[version], folder / good[version].name)
    return folder


# --- the bad files, one of each kind ---------------------------------------------------------


def empty(good: dict[str, Path], folder: Path) -> Path:
    path = folder / LOG_NAME.format(1, "empty", "eval")
    path.write_bytes(b"")
    return path


def truncated(good: dict[str, Path], folder: Path) -> Path:
    data = good["v3"].read_bytes()
    path = folder / LOG_NAME.format(2, "half", "eval")
    path.write_bytes(data[: len(data) // 2])
    return path


def truncated_json(good: dict[str, Path], folder: Path) -> Path:
    """The first half of the v3 log written as a .json log."""
    path = folder / LOG_NAME.format(6, "half", "json")
    write_eval_log(read_eval_log(str(good["v3"])), str(path))
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def not_a_log(good: dict[str, Path], folder: Path) -> Path:
    path = folder / LOG_NAME.format(3, "notes", "json")
    path.write_text(json.dumps({"note": "the v3 run looks good"}), encoding="utf-8")
    return path


def another_task(good: dict[str, Path], folder: Path) -> Path:
    log = read_eval_log(str(good["v3"]))
    log.eval = log.eval.model_copy(update={"task": "farejudge/other_task"})
    path = folder / LOG_NAME.format(4, "other", "eval")
    write_eval_log(log, str(path))
    return path


def damaged(good: dict[str, Path], folder: Path) -> Path:
    """The v3 log, as a retry of it that finished later would be, with its header whole and
    its sample summaries cut off mid-record: the log chosen for the v3 run, until read."""
    path = folder / LOG_NAME.format(5, "damaged", "eval")
    with zipfile.ZipFile(good["v3"]) as old, zipfile.ZipFile(path, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "header.json":
                header = json.loads(data)
                header["stats"]["completed_at"] = "2099-01-01T00:00:00+00:00"
                data = json.dumps(header).encode()
            elif info.filename == "summaries.json":
                data = data[:40]
            new.writestr(info.filename, data)
    return path


def unfinished(good: dict[str, Path], folder: Path, keep: int = 3) -> Path:
    """The v3 log as its run leaves it while still going: its start and the summaries of the
    first `keep` samples in the journal, no header.json."""
    path = folder / good["v3"].name
    with zipfile.ZipFile(good["v3"]) as old, zipfile.ZipFile(path, "w") as new:
        header = json.loads(old.read("header.json"))
        start = {key: header[key] for key in ("version", "eval", "plan")}
        new.writestr("_journal/start.json", json.dumps(start))
        summaries = json.loads(old.read("summaries.json"))[:keep]
        new.writestr("_journal/summaries/1.json", json.dumps(summaries))
    return path


Maker = Callable[[dict[str, Path], Path], Path]
KINDS: dict[str, tuple[Maker, str]] = {
    "empty": (empty, "empty (0 bytes)"),
    "truncated": (truncated, "truncated ("),
    "truncated .json": (truncated_json, "truncated ("),
    "not a log": (not_a_log, "not a log (a JSON document with no Inspect eval spec)"),
    "another task": (another_task, "another task (its task is farejudge/other_task)"),
    "damaged": (damaged, "damaged (its samples: "),
}
"""Each kind of bad file's maker, and how judge-compare's line about it starts."""
HOLDING = ["empty", "truncated", "truncated .json"]
"""The kinds whose header cannot be read: each may hold a run, and holds the gate."""


def compare(*logs: Path | str, out: Path) -> int:
    return run([*map(str, logs), "--out", str(out), "--quiet", "--resamples", "50"])


def left_out_rows(out: Path) -> list[dict[str, str]]:
    lines = (out / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    return [row for row in map(json.loads, lines) if row["list"] == "left_out"]


@pytest.mark.slow
def test_bad_files_in_a_folder_are_named_and_the_good_logs_compared(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(good, tmp_path / "logs")
    made = {kind: maker(good, folder) for kind, (maker, _) in KINDS.items()}
    # Inspect's own files beside an eval set's logs are not logs, and not named.
    (folder / "eval-set.json").write_text("{}", encoding="utf-8")
    capsys.readouterr()

    code = compare(folder, out=tmp_path / "report")

    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_GATE
    for kind, (_, said) in KINDS.items():
        line = f"judge-compare: left out {made[kind]}: {said}"
        assert [e for e in err if e.startswith(line)], (kind, err)
    assert not [e for e in err if "eval-set.json" in e]
    assert "gate: INCOMPLETE (4)" in err
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    # The good logs are compared: v3 fixes both cases v2 got wrong.
    assert f"v2 → v3 with {MODEL}: 2 fixed, 0 broken of 5 cases" in md
    header = md.split("\n## ")[0]
    assert f"Left out: {len(KINDS)} log file(s) found and not compared." in header
    gate = md.split("## Gate: INCOMPLETE")[1].split("\n## ")[0]
    for kind in HOLDING:
        assert f"incomplete: {made[kind]} is left out, {KINDS[kind][1]}" in gate
    assert gate.count("it may hold a run this comparison lacks") == len(HOLDING)
    # Its header read, the damaged log is tied to its run: compared on the run's other log.
    assert f"incomplete: v3 with {MODEL}: its log {made['damaged']} is left out, damaged (" in gate
    # Read whole and not a log of the task: listed, and no hold on the gate.
    assert str(made["not a log"]) not in gate and str(made["another task"]) not in gate
    rows = {row["File"]: row for row in left_out_rows(tmp_path / "report")}
    assert {row["Left out"] for row in rows.values()} == {
        "empty",
        "truncated",
        "not a log",
        "another task",
        "damaged",
    }
    assert {rows[str(made[k])]["Gate"] for k in ("not a log", "another task")} == {"none"}
    assert rows[str(made["damaged"])]["Run"] == f"v3 with {MODEL}"
    assert rows[str(made["empty"])]["Run"] == "unknown: no header read"
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert str(made["truncated"]) in html.split("<h2")[0]


@pytest.mark.slow
def test_a_left_out_log_of_a_run_nothing_else_holds_says_which_run(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(good, tmp_path / "logs", ("v2",))
    bad = damaged(good, folder)
    capsys.readouterr()

    assert compare(folder, out=tmp_path / "report") == EXIT_GATE

    err = capsys.readouterr().err
    assert "gate: INCOMPLETE (2)" in err
    assert f"incomplete: v3 has no run with {MODEL}" in err
    assert f"incomplete: {bad} is left out, damaged (its samples: " in err
    assert f"it holds the v3 run with {MODEL}, which nothing here compares" in err
    rows = left_out_rows(tmp_path / "report")
    assert [row["Run"] for row in rows] == [f"v3 with {MODEL} (not compared)"]


@pytest.mark.slow
def test_files_that_cannot_hold_a_run_leave_the_gate_passing(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(good, tmp_path / "logs")
    not_a_log(good, folder)
    another_task(good, folder)
    capsys.readouterr()

    assert compare(folder, out=tmp_path / "report") == EXIT_OK

    err = capsys.readouterr().err
    assert err.count("judge-compare: left out ") == 2
    assert "gate: passed" in err
    assert len(left_out_rows(tmp_path / "report")) == 2


@pytest.mark.slow
def test_an_unfinished_log_is_compared_on_what_it_holds_and_the_gate_names_it(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(good, tmp_path / "logs", ("v2",))
    still_going = unfinished(good, folder)
    empty(good, folder)
    capsys.readouterr()

    assert compare(folder, out=tmp_path / "report") == EXIT_GATE

    err = capsys.readouterr().err
    assert "gate: INCOMPLETE (2)" in err
    (line,) = [e for e in err.splitlines() if e.startswith(f"  incomplete: v3 with {MODEL}: ")]
    assert "2 of 5 cases not judged (0 errored, 2 never run)" in line
    assert "the run did not finish (log status 'started')" in line
    assert f"complete it with `inspect eval-retry {still_going}`" in line
    # Only the empty file is left out: the unfinished log is read, and compared.
    assert err.count("judge-compare: left out ") == 1
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"| v3 | {MODEL} | 3 |" in md


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_log_named_on_the_command_line_that_cannot_be_used_is_an_error_naming_it(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    maker, said = KINDS[kind]
    bad = maker(good, tmp_path)
    capsys.readouterr()

    assert compare(good["v2"], bad, out=tmp_path / "report") == EXIT_INPUT

    err = capsys.readouterr().err
    assert err.startswith(f"judge-compare: error: {bad}: cannot compare it: {said}"), err
    assert err.count("\n") == 1
    assert not (tmp_path / "report").exists()


def test_a_named_file_that_is_no_log_at_all_is_an_error_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("v3 looks good\n", encoding="utf-8")
    assert compare(notes, out=tmp_path / "report") == EXIT_INPUT
    assert capsys.readouterr().err == (
        f"judge-compare: error: {notes}: not a log (an Inspect log is a .eval or .json file)\n"
    )


@pytest.mark.slow
def test_a_folder_of_bad_files_only_names_each_then_says_nothing_is_left(
    good: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    made = [empty(good, folder), truncated(good, folder)]
    capsys.readouterr()

    assert compare(folder, out=tmp_path / "report") == EXIT_INPUT

    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3
    assert f"judge-compare: left out {made[0]}: empty (0 bytes)" in err
    assert any(e.startswith(f"judge-compare: left out {made[1]}: truncated (") for e in err)
    assert err[2:] == [
        f"judge-compare: error: no judge_groundedness logs in {folder}: each log found is "
        "left out (2)"
    ]


# --- files Inspect's own listing skips: a .json log not named like one ----------------------


def renamed_json(good: dict[str, Path], folder: Path, name: str = "v1-run.json") -> Path:
    """The v1 log written as a .json log under a name of the user's: Inspect's listing takes
    a .json file for a log only when its name starts with a timestamp."""
    path = folder / name
    write_eval_log(read_eval_log(str(good["v1"])), str(path))
    return path


@pytest.fixture(scope="module")
def with_v1(good: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The good logs and a v1 log that gets one of the two cases v2 got wrong right."""
    root = tmp_path_factory.mktemp("v1")
    cases = write_cases(root / "cases.jsonl")
    v1 = run_version("v1", {"t-silence": "wrong"}, cases, root / "logs")
    return {**good, "v1": Path(v1.location)}


@pytest.mark.slow
def test_a_log_renamed_beyond_inspects_listing_is_compared(
    with_v1: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(with_v1, tmp_path / "logs")
    renamed_json(with_v1, folder)
    capsys.readouterr()

    code = compare(folder, out=tmp_path / "report")

    err = capsys.readouterr().err
    assert "left out" not in err
    md = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"| v1 | {MODEL} | 5 |" in md, "the renamed v1 log is compared"
    # v1 got fresh-001 right; v2 broke it, and v3 fixed it again.
    assert f"v1 → v2 with {MODEL}: 0 fixed, 1 broken of 5 cases" in md
    assert code == EXIT_OK, err


@pytest.mark.slow
def test_a_json_file_beyond_inspects_listing_that_is_no_whole_log_is_named(
    with_v1: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = folder_of(with_v1, tmp_path / "logs")
    cut = renamed_json(with_v1, folder)
    cut.write_bytes(cut.read_bytes()[:5000])
    notes = folder / "notes.json"
    notes.write_text(json.dumps({"note": "v3 looks good"}), encoding="utf-8")
    # Inspect's own files beside an eval set's logs stay unnamed.
    (folder / "logs.json").write_text("{}", encoding="utf-8")
    capsys.readouterr()

    assert compare(folder, out=tmp_path / "report") == EXIT_GATE

    err = capsys.readouterr().err.splitlines()
    assert sorted(e for e in err if e.startswith("judge-compare: left out ")) == [
        f"judge-compare: left out {notes}: not a log (a JSON document with no Inspect eval "
        "spec)",
        f"judge-compare: left out {cut}: truncated (5,000 bytes, its JSON object not closed: "
        "cut short, as by a full disk or an interrupted copy)",
    ]
    assert "gate: INCOMPLETE (1)" in err
    assert any(e.startswith(f"  incomplete: {cut} is left out, truncated (") for e in err)
