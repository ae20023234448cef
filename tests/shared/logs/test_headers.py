"""The comparison's own log listing and header reader against Inspect's, which it mirrors
so that judge-compare does not import Inspect (seconds of start-up)."""

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
import zstandard
from inspect_ai.log import list_eval_logs, read_eval_log, write_eval_log

from farejudge.shared.logs.headers import header_of, list_logs, read_header
from farejudge.testing.synthetic_logs import write_runs


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Logs of each kind the comparison meets (seconds to write): the fast writer's .eval,
    Inspect's own .eval and .json, a header with times in other zones, an error and a cost,
    and a run killed before it wrote its header (its journal's start only)."""
    folder = tmp_path_factory.mktemp("logs")
    fast = sorted(write_runs(folder / "fast", 6))
    made = [*fast]
    for suffix in (".eval", ".json"):
        log = read_eval_log(str(fast[0]))
        path = folder / "inspect" / (fast[0].stem + suffix)
        path.parent.mkdir(exist_ok=True)
        write_eval_log(log, str(path))
        made.append(path)
    made.append(_edited_header(fast[1], folder / "edited" / fast[1].name, _zones_error_cost))
    made.append(_edited_header(fast[2], folder / "killed" / fast[2].name, None))
    return made


def _zones_error_cost(header: dict[str, Any]) -> dict[str, Any]:
    header["eval"]["created"] = "2026-01-02T03:04:05+02:00"
    header["stats"]["completed_at"] = "2026-01-02T05:06:07Z"
    header["eval"]["config"]["limit"] = [2, 5]
    header["eval"]["config"]["sample_id"] = ["c1", 3]
    header["status"] = "error"
    header["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}
    for usage in header["stats"]["model_usage"].values():
        usage["total_cost"] = 0.5
    return header


def _edited_header(source: Path, target: Path, edit: object) -> Path:
    """`source` copied to `target` with its header.json edited by `edit`; with no edit, as a
    killed run leaves it: no header.json, its start in the journal."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w") as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename == "header.json":
                header = json.loads(data)
                if callable(edit):
                    new.writestr(info.filename, json.dumps(edit(header)))
                else:
                    start = {k: header[k] for k in ("version", "eval", "plan")}
                    new.writestr("_journal/start.json", json.dumps(start))
            elif not info.filename.startswith("_journal/"):
                new.writestr(info, data)
    return target


@pytest.mark.slow
def test_every_header_reads_as_inspect_reads_it(
    logs: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    theirs = {path: header_of(read_eval_log(str(path), header_only=True)) for path in logs}
    # Inspect reads only what has no header.json: a .json log, the killed run's (the last).
    by_us = [path for path in logs[:-1] if path.suffix == ".eval"]
    with monkeypatch.context() as patched:
        patched.setattr("inspect_ai.log.read_eval_log", _refuse)
        ours = {path: read_header(str(path)) for path in by_us}
    ours |= {path: read_header(str(path)) for path in logs if path not in by_us}
    assert ours == theirs


def _refuse(*args: object, **kwargs: object) -> None:
    raise AssertionError("read by Inspect")


@pytest.mark.slow
def test_the_edited_header_is_not_the_plain_one(logs: list[Path]) -> None:
    # So the comparison above covers times in other zones, an error and a cost.
    edited = read_header(str(logs[-2]))
    assert edited.created == "2026-01-02T01:04:05+00:00"
    assert edited.finished == "2026-01-02T05:06:07+00:00"
    assert edited.error == "boom" and edited.status == "error"
    assert {u.total_cost for u in edited.usage.values()} == {0.5}
    assert edited.limit == (2, 5) and edited.sample_id == ["c1", 3]
    assert read_header(str(logs[-1])).status == "started"


@pytest.mark.slow
def test_the_listing_is_inspects_and_every_other_json_file(
    logs: list[Path], tmp_path: Path
) -> None:
    folder = tmp_path / "listed"
    for path in logs:
        # Subfolders, and one deeper, as an eval set's retries and shards leave them.
        place = folder / path.parent.name / ("deeper" if path.suffix == ".json" else "")
        place.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, place / path.name)
    (folder / "eval-set.json").write_text("{}")
    (folder / "logs.json").write_text("{}")
    (folder / "fast" / "notes.json").write_text("{}")
    (folder / "fast" / "cases.jsonl").write_text("")
    ours = list_logs(str(folder))
    theirs = [info.name.removeprefix("file://") for info in list_eval_logs(str(folder))]
    assert [log for log in ours if log in theirs] == theirs
    assert len(theirs) == len(logs)
    # A .json file not named like a log may be one: the comparison reads it to know.
    others = {"eval-set.json", "logs.json", "fast/notes.json"}
    assert set(ours) - set(theirs) == {str(folder / name) for name in others}


@pytest.mark.subprocess
def test_the_comparison_does_not_import_inspect() -> None:
    code = (
        "import sys, farejudge.comparison.cli;"
        "print([m for m in sys.modules if m.startswith('inspect_ai')])"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout == "[]\n"


@pytest.mark.subprocess
def test_a_member_of_many_zstd_frames_reads_whole_without_inspect(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Inspect splits a member over 200 MiB into frames; a frame per write shows the same.
    monkeypatch.setattr(zipfile, "_get_compressor", lambda *args, **kwargs: _FramePerCall())
    data = bytes(range(256)) * 40
    archive = tmp_path / "frames.zip"
    zstd: int = zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]
    with zipfile.ZipFile(archive, "w", compression=zstd) as out, out.open("member", "w") as f:
        for start in range(0, len(data), 1000):
            f.write(data[start : start + 1000])
    code = (
        "import sys, zipfile, farejudge.shared.logs.headers;"
        f"print(zipfile.ZipFile({str(archive)!r}).read('member').hex());"
        "print([m for m in sys.modules if m.startswith('inspect_ai')])"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout == f"{data.hex()}\n[]\n"


class _FramePerCall:
    def compress(self, data: bytes) -> bytes:
        return zstandard.ZstdCompressor().compress(data)

    def flush(self) -> bytes:
        return b""
