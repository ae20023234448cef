"""A labels file survives an interrupted save: a torn last line is moved to a side file when
judge-label starts, any other bad line is still an error naming it, and a failed append is
cut back off so nothing saved after it is glued to it."""

import errno
import http.client
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from farejudge.core.errors import InputError
from farejudge.labelling.label_file import append_label, read_labels, recover_torn_tail
from farejudge.labelling.label_session import open_session
from farejudge.labelling.records import Label
from tests.support.browser import GUIDE
from tests.support.label_http import (
    JUDGE_LABEL,
    judge_label,
    port_of,
    post_label,
    request,
    stopped,
    submission,
)
from tests.support.labels import DRAFTS, label

BIG_REASON = "the answer's fare table " * 2100  # about 50 KB on one line, as in the drill


def saved(*labels: Label) -> bytes:
    return b"".join(lab.model_dump_json().encode() + b"\n" for lab in labels)


def good() -> list[Label]:
    return [label(d, "alice") for d in DRAFTS[:3]]


def big(index: int = 3) -> bytes:
    """A 50 KB label as one line, without its newline."""
    return label(DRAFTS[index], "alice", reason=BIG_REASON).model_dump_json().encode()


def side_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.torn-*"))


def test_a_save_cut_mid_string_is_moved_aside_when_judge_label_starts(tmp_path: Path) -> None:
    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "labels" / "alice.jsonl"
    drafts.write_bytes(saved_drafts())
    labels.parent.mkdir()
    torn = big()[:40_000]
    assert torn.count(b'"') % 2 == 1, "cut inside the reason string"
    labels.write_bytes(saved(*good()) + torn)

    session = open_session(drafts, labels, "alice", GUIDE)

    (side,) = side_files(labels)
    assert session.recovered == (
        f"{labels}:4: torn last line (an interrupted save, 40000 bytes) moved to {side}"
    )
    assert side.read_bytes() == torn
    assert labels.read_bytes() == saved(*good())
    assert sorted(session.current) == sorted(d.id for d in DRAFTS[:3])
    # Started again, there is nothing left to recover.
    assert open_session(drafts, labels, "alice", GUIDE).recovered is None
    assert len(side_files(labels)) == 1


def saved_drafts() -> bytes:
    return b"".join(d.model_dump_json().encode() + b"\n" for d in DRAFTS)


@pytest.mark.parametrize(
    ("tail", "why"),
    [
        (big()[:1], "one byte of a save"),
        ('{"reason": "tarifa é'.encode()[:-1], "cut inside a two-byte character"),
        (b"\x00" * 512, "the zeros a power cut leaves where the data never landed"),
        (big()[:-3] + b"\n", "cut short, though a line break follows"),
    ],
)
def test_each_kind_of_torn_tail_is_recovered(tmp_path: Path, tail: bytes, why: str) -> None:
    path = tmp_path / "alice.jsonl"
    path.write_bytes(saved(*good()) + tail)
    notice = recover_torn_tail(path)
    assert notice is not None and notice.startswith(f"{path}:4: torn last line"), why
    assert path.read_bytes() == saved(*good())
    assert [s.read_bytes() for s in side_files(path)] == [tail]


def test_a_whole_last_label_without_its_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    path.write_bytes(saved(*good())[:-1])
    assert recover_torn_tail(path) is None
    append_label(path, label(DRAFTS[3], "alice"))
    assert len(read_labels(path)) == 4
    assert not side_files(path)


def test_a_bad_line_before_the_last_is_an_error_that_names_it(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    first, *rest = good()
    content = saved(first) + big()[:1000] + b"\n" + saved(*rest)
    path.write_bytes(content)
    assert recover_torn_tail(path) is None
    with pytest.raises(InputError) as err:
        read_labels(path)
    (problem,) = err.value.problems
    assert problem.startswith(f"{path}:2: case ?: not valid JSON (Unterminated string")
    assert path.read_bytes() == content and not side_files(path)


def test_a_last_line_that_is_whole_but_wrong_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "alice.jsonl"
    path.write_bytes(saved(*good()) + b'{"case_id": "x"} and more\n')
    assert recover_torn_tail(path) is None
    with pytest.raises(InputError, match=rf"^{path}:4: case \?: not valid JSON \(Extra data"):
        read_labels(path)


def test_other_readers_leave_the_torn_tail_out_and_the_file_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "alice.jsonl"
    content = saved(*good()) + big()[:777]
    path.write_bytes(content)
    assert read_labels(path) == good()
    assert capsys.readouterr().err == (
        f"{path}:4: torn last line (an interrupted save, 777 bytes) left out; "
        "judge-label moves it to a side file when it starts\n"
    )
    assert path.read_bytes() == content and not side_files(path)


def test_a_failed_append_is_cut_back_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "alice.jsonl"
    path.write_bytes(saved(*good()))
    real_write = os.write

    def disk_fills(fd: int, data: bytes | memoryview) -> int:
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", disk_fills)
    with pytest.raises(OSError, match="No space left"):
        append_label(path, label(DRAFTS[3], "alice", reason=BIG_REASON))
    monkeypatch.undo()
    assert path.read_bytes() == saved(*good())
    append_label(path, label(DRAFTS[3], "alice"))
    assert len(read_labels(path)) == 4


# judge-label's own `run`, with os.write made to stop half-way through the Nth append to the
# labels file and wait there to be killed: a SIGKILL landing inside a save, every time.
STALLING_LABEL_SERVER = """
import os, sys, time
from pathlib import Path

labels, marker, stall_at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
real_write, appends = os.write, 0


def write(fd, data):
    global appends
    if os.readlink(f"/proc/self/fd/{fd}") == labels:
        appends += 1
        if appends == stall_at:
            real_write(fd, bytes(data[: len(data) // 2]))
            marker.touch()
            time.sleep(600)
    return real_write(fd, data)


os.write = write
from farejudge.labelling.label_server import run

sys.exit(run(sys.argv[4:]))
"""


@pytest.mark.subprocess
def test_judge_label_killed_mid_save_restarts_with_every_saved_label(tmp_path: Path) -> None:
    drafts, labels = tmp_path / "drafts.jsonl", (tmp_path / "labels" / "alice.jsonl").resolve()
    drafts.write_bytes(saved_drafts())
    marker = tmp_path / "half-written"
    args = ["--drafts", str(drafts), "--annotator", "alice", "--guide", str(GUIDE)]
    stalling = [sys.executable, "-c", STALLING_LABEL_SERVER, str(labels), str(marker), "3"]
    server = judge_label(stalling, tmp_path / "processes", *args)
    try:
        port = port_of(server)
        for draft in DRAFTS[:2]:
            assert post_label(port, submission(draft))[0] == 200
        cut_off: list[BaseException] = []

        def third_save() -> None:
            try:
                post_label(port, submission(DRAFTS[2], reason=BIG_REASON))
            except (OSError, http.client.HTTPException) as err:
                cut_off.append(err)

        saving = threading.Thread(target=third_save)
        saving.start()
        deadline = time.monotonic() + 30
        while not marker.exists():
            assert time.monotonic() < deadline, "the third save never started"
            time.sleep(0.01)
        server.process.send_signal(signal.SIGKILL)
        saving.join(10)
        assert cut_off, "the page heard no answer: the save was never acknowledged"
    finally:
        server.kill()
    torn = labels.read_bytes().split(b"\n")[-1]
    assert 20_000 < len(torn) < 40_000, "the kill left half of the 50 KB line"

    restarted = judge_label([JUDGE_LABEL], tmp_path / "processes", *args)
    try:
        port = port_of(restarted)
        status, state = request(port, "GET", "/api/state")
        assert (status, state["labelled"], state["next"]) == (200, 2, 2)
    finally:
        err = stopped(restarted)
    assert restarted.returncode == 0, err
    (side,) = side_files(labels)
    assert err.splitlines() == [
        f"judge-label: {labels}:3: torn last line (an interrupted save, {len(torn)} bytes) "
        f"moved to {side}"
    ]
    assert side.read_bytes() == torn
    assert [lab.case_id for lab in read_labels(labels)] == [d.id for d in DRAFTS[:2]]
