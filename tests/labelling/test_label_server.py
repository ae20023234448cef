"""judge-label saves only what its own page sends: a POST from any other origin is refused, a
half-sent body is dropped after the read timeout, and a stalled connection holds up no other.

Curl-level requests (http.client, headers exactly as given) and one real cross-origin page in
headless Chromium.
"""

import errno
import http.server
import json
import os
import re
import signal
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from farejudge.labelling import label_http, label_server
from farejudge.labelling.label_file import append_label, read_labels
from farejudge.labelling.label_http import LabelServer
from farejudge.labelling.label_session import open_session
from tests.support.browser import GUIDE
from tests.support.children import Child
from tests.support.label_http import (
    JUDGE_LABEL,
    judge_label,
    own_origin,
    port_of,
    post_label,
    request,
    stopped,
    submission,
)
from tests.support.labels import DRAFTS, label, write_drafts

if TYPE_CHECKING:
    from playwright.sync_api import Page

EVIL = "http://evil.example"


@contextmanager
def serving(tmp_path: Path, **options: Any) -> Iterator[tuple[LabelServer, Path]]:
    """A label server over the sample drafts on a free port, serving in a thread."""
    drafts, labels = tmp_path / "drafts.jsonl", tmp_path / "labels" / "ana.jsonl"
    write_drafts(drafts, DRAFTS)
    server = LabelServer(0, open_session(drafts, labels, "ana", GUIDE), **options)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server, labels
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def saved_ids(labels: Path) -> list[str]:
    return [label.case_id for label in read_labels(labels)]


@pytest.mark.parametrize(
    ("headers", "sent"),
    [
        ({"Origin": EVIL}, f"Origin {EVIL}"),
        ({"Origin": "null"}, "Origin null"),
        ({"Referer": f"{EVIL}/page.html"}, f"Origin {EVIL}"),
        ({}, "no Origin or Referer"),
        ({"Origin": "http://127.0.0.1:1"}, "Origin http://127.0.0.1:1"),
    ],
    ids=["evil origin", "null origin", "evil referer", "neither", "another loopback port"],
)
def test_a_post_not_from_the_servers_own_page_is_refused(
    tmp_path: Path, headers: dict[str, str], sent: str
) -> None:
    with serving(tmp_path) as (server, labels):
        port = server.server_address[1]
        status, answer = post_label(port, submission(DRAFTS[0]), origin=None, **headers)
    assert (status, answer) == (
        403,
        {"error": f"labels are saved only from this server's page ({sent})"},
    )
    assert not labels.exists()


def test_the_servers_own_origin_saves(tmp_path: Path) -> None:
    with serving(tmp_path) as (server, labels):
        port = server.server_address[1]
        assert post_label(port, submission(DRAFTS[0]))[0] == 200
        assert post_label(port, submission(DRAFTS[1]), origin=f"http://localhost:{port}")[0] == 200
        referer = {"Referer": f"{own_origin(port)}/"}
        assert post_label(port, submission(DRAFTS[2]), origin=None, **referer)[0] == 200
        # The Host check stays: a rebound DNS name sends its own Host, whatever the Origin.
        status, _ = post_label(port, submission(DRAFTS[3]), Host="evil.example")
        assert status == 403
    assert saved_ids(labels) == [d.id for d in DRAFTS[:3]]


def test_a_save_is_on_disk_before_the_page_hears_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[tuple[float, str]] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        synced.append((time.monotonic(), os.readlink(f"/proc/self/fd/{fd}")))

    with serving(tmp_path) as (server, labels):
        monkeypatch.setattr(os, "fsync", fsync)
        status, _ = post_label(server.server_address[1], submission(DRAFTS[0]))
        answered = time.monotonic()
    assert status == 200
    assert [when < answered for when, path in synced if path == str(labels.resolve())] == [True]


def test_a_full_disk_is_one_line_and_the_next_save_still_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes | memoryview) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with serving(tmp_path) as (server, labels):
        port = server.server_address[1]
        assert post_label(port, submission(DRAFTS[0]))[0] == 200
        monkeypatch.setattr(os, "write", full)
        status, answer = post_label(port, submission(DRAFTS[1]))
        monkeypatch.undo()
        assert (status, answer) == (500, {"error": f"{labels}: No space left on device"})
        assert request(port, "GET", "/api/state")[1]["labelled"] == 1
        assert post_label(port, submission(DRAFTS[1]))[0] == 200
    assert saved_ids(labels) == [DRAFTS[0].id, DRAFTS[1].id]


def half_sent(port: int, body_bytes: int = 10) -> socket.socket:
    """A connection that sends a label's headers and the first bytes of its body, then stops."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        (
            "POST /api/labels HTTP/1.1\r\n"
            f"Host: 127.0.0.1:{port}\r\nOrigin: {own_origin(port)}\r\n"
            "Content-Type: application/json\r\nContent-Length: 400\r\n\r\n"
        ).encode()
        + b"{" * body_bytes
    )
    return sock


def answer_of(sock: socket.socket, timeout: float) -> bytes:
    """Everything the server sends before it closes the connection."""
    sock.settimeout(timeout)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


def threads_serving() -> int:
    return sum("process_request_thread" in t.name for t in threading.enumerate())


def test_a_ctrl_c_as_a_request_thread_starts_stops_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a busy machine the request's thread can answer before the serving thread hears that
    # it started: a Ctrl-C then lands inside Thread.start, after the start.
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, DRAFTS)
    server = LabelServer(0, open_session(drafts, tmp_path / "ana.jsonl", "ana", GUIDE))
    start = threading.Thread.start

    def started_then_ctrl_c(thread: threading.Thread) -> None:
        start(thread)
        thread.join()
        raise KeyboardInterrupt

    try:
        socket.create_connection(("127.0.0.1", server.server_address[1])).close()
        request, client_address = server.get_request()
        monkeypatch.setattr(threading.Thread, "start", started_then_ctrl_c)
        with pytest.raises(KeyboardInterrupt):
            server.process_request(request, client_address)
    finally:
        server.server_close()


@pytest.mark.slow
def test_a_half_sent_body_is_dropped_after_the_read_timeout(tmp_path: Path) -> None:
    with serving(tmp_path, read_timeout=1.0) as (server, labels):
        started = time.monotonic()
        with half_sent(server.server_address[1]) as sock:
            received = answer_of(sock, timeout=10)
        waited = time.monotonic() - started
    assert received.startswith(b"HTTP/1.0 408 ")
    assert received.endswith(b'{"error": "the label did not arrive whole within 1 s"}')
    assert 0.9 < waited < 5
    assert not labels.exists()


@pytest.mark.slow
def test_past_the_connection_limit_a_connection_is_answered_503_at_once(tmp_path: Path) -> None:
    with serving(tmp_path, max_connections=4, read_timeout=1.0) as (server, labels):
        port = server.server_address[1]
        before = threads_serving()
        held = [half_sent(port) for _ in range(4)]
        time.sleep(0.3)
        peak = threads_serving() - before
        started = time.monotonic()
        with half_sent(port) as sock:
            refused = answer_of(sock, timeout=10)
        refused_after = time.monotonic() - started
        dropped = [answer_of(sock, timeout=10) for sock in held]
        for sock in held:
            sock.close()
        served = post_label(port, submission(DRAFTS[0]))[0]
    assert peak == 4
    assert refused.startswith(b"HTTP/1.0 503 ")
    assert refused.endswith(b'{"error": "the labelling server has 4 connections open"}')
    assert refused_after < 0.5, "refused at once, not after the held ones time out"
    assert all(answer.startswith(b"HTTP/1.0 408 ") for answer in dropped)
    assert served == 200
    assert saved_ids(labels) == [DRAFTS[0].id]


EVIL_PAGE = """<!doctype html><title>waiting</title><script>
fetch(%(target)s, {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"},
                   body: %(body)s})
  .then(() => { document.title = "sent"; }, (err) => { document.title = "failed: " + err; });
</script>"""


@contextmanager
def evil_site(html: str) -> Iterator[str]:
    """Another site on another loopback port, serving `html` at /."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = html.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{site.server_address[1]}"
    finally:
        site.shutdown()
        site.server_close()
        thread.join()


@pytest.mark.browser
def test_a_page_on_another_origin_cannot_save_through_the_browser(
    page: "Page", tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A simple request (no-cors, text/plain) skips the preflight: the browser sends it and
    hides only the answer. The server sees it, with the other page's Origin, and saves nothing."""
    from playwright.sync_api import expect  # the fixture has skipped when it is missing

    seen: list[tuple[str | None, str]] = []
    real_post = label_http.LabelHandler.do_POST

    def recorded(handler: label_http.LabelHandler) -> None:
        seen.append((handler.headers.get("Origin"), handler.headers.get_content_type()))
        real_post(handler)

    monkeypatch.setattr(label_http.LabelHandler, "do_POST", recorded)
    with serving(tmp_path) as (server, labels):
        target = f"{server.url}api/labels"
        # Each a JavaScript string literal: JSON's string syntax is JavaScript's.
        body = json.dumps(json.dumps(submission(DRAFTS[0])))
        with evil_site(EVIL_PAGE % {"target": json.dumps(target), "body": body}) as evil:
            page.goto(f"{evil}/")
            expect(page).to_have_title("sent")
            deadline = time.monotonic() + 5
            while not seen and time.monotonic() < deadline:
                time.sleep(0.05)
    assert seen == [(evil, "text/plain")], "the browser sent it, from the other origin"
    assert not labels.exists()


def judge_label_on_drafts(folder: Path) -> Child:
    """The real judge-label over the sample drafts in `folder`, as "ana" (labels in
    `folder/labels/ana.jsonl`), on a free port, started as a background job (SIGINT ignored)."""
    drafts = folder / "drafts.jsonl"
    write_drafts(drafts, DRAFTS)
    args = ["--drafts", str(drafts), "--annotator", "ana", "--guide", str(GUIDE)]
    return judge_label([JUDGE_LABEL], folder / "processes", *args)


def one_byte_changed(text: str, at: int) -> str:
    """`text` with the character at `at` replaced by another hex digit, as a flipped bit or a
    careless edit would leave it."""
    return text[:at] + ("0" if text[at] != "0" else "1") + text[at + 1 :]


def damaged_labels(labels: Path) -> list[str]:
    """A labels file of ten labels, one for each sample draft, two of them damaged after they
    were saved: the second's content hash and the third's case id, one byte each. The lines
    judge-label says of them."""
    given = [label(d, "ana") for d in DRAFTS]
    hash_damaged = one_byte_changed(DRAFTS[1].content_sha256, 40)
    id_damaged = one_byte_changed(DRAFTS[2].id, len(DRAFTS[2].id) - 3)
    given[1] = given[1].model_copy(update={"content_sha256": hash_damaged})
    given[2] = given[2].model_copy(update={"case_id": id_damaged})
    for one in given:
        append_label(labels, one)
    return [
        f"{labels}:2: label for {DRAFTS[1].id!r} matches no draft: its content_sha256 is not "
        "the draft's, which is as intake wrote it, so the label was damaged",
        f"{labels}:3: label for {id_damaged!r} matches no draft: no case here has this id, "
        f"and its content hash is {DRAFTS[2].id!r}'s: its case id was damaged",
    ]


@pytest.mark.subprocess
def test_a_damaged_label_is_named_at_start_kept_and_shown_on_the_page(tmp_path: Path) -> None:
    labels = tmp_path / "labels" / "ana.jsonl"
    said = damaged_labels(labels)
    before = labels.read_bytes()
    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        state = request(port, "GET", "/api/state")[1]
        views = [request(port, "GET", f"/api/drafts/{i}")[1] for i in range(3)]
        # Labelled again, the draft's own label counts and the damaged line is history.
        assert post_label(port, submission(DRAFTS[1]))[0] == 200
        after = request(port, "GET", "/api/state")[1]
    finally:
        err = stopped(server)
    assert server.returncode == 0, err
    assert err.splitlines() == [f"judge-label: {line}" for line in said]
    assert (state["labelled"], state["next"], state["attention"]) == (8, 1, said)
    assert [len(view["attention"]) for view in views] == [0, 1, 1]
    assert views[1]["attention"][0].startswith("Line 2 of your labels file is a label of this")
    assert views[2]["attention"][0].startswith("Line 3 of your labels file is a label of this")
    assert (after["labelled"], after["attention"]) == (9, said[1:])
    assert labels.read_bytes().startswith(before), "the damaged lines are kept as they were"


STALLED = 50


@pytest.mark.subprocess
def test_a_normal_request_is_answered_within_a_second_beside_fifty_stalled_connections(
    tmp_path: Path,
) -> None:
    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        stalled = [half_sent(port) for _ in range(STALLED)]
        time.sleep(0.5)  # every one of them accepted, and holding whatever it holds
        started = time.monotonic()
        status, state = request(port, "GET", "/api/state", timeout=120)
        waited = time.monotonic() - started
        for sock in stalled:
            sock.close()
    finally:
        err = stopped(server)
    print(f"GET /api/state beside {STALLED} stalled connections: {waited:.3f} s")
    assert (status, state["total"]) == (200, len(DRAFTS))
    assert waited < 1.0
    assert server.returncode == 0, err


def hangs_up(port: int, request_bytes: bytes) -> None:
    """A client that sends `request_bytes` and resets the connection without waiting."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.sendall(request_bytes)
    sock.close()


@pytest.mark.subprocess
def test_clients_that_hang_up_print_no_traceback(tmp_path: Path) -> None:
    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        host = f"Host: 127.0.0.1:{port}\r\n"
        for _ in range(10):
            hangs_up(port, f"GET /api/guide HTTP/1.1\r\n{host}\r\n".encode())
            with half_sent(port) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            with half_sent(port):
                pass  # closed politely, half-way through its body
        time.sleep(1)
        # Still serving.
        assert request(port, "GET", "/api/state")[0] == 200
    finally:
        err = stopped(server)
    print(f"hang-ups: {err.count('Traceback')} tracebacks, {len(err.splitlines())} lines")
    assert server.returncode == 0, err
    assert err == "", err


def raw_answer(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(data)
        return answer_of(sock, timeout=10)


def refusals(port: int) -> dict[str, bytes]:
    """Requests a page must never save through, as raw bytes: each kind the drills tried."""
    own = f"Host: 127.0.0.1:{port}\r\nOrigin: {own_origin(port)}\r\n"
    label_json = json.dumps(submission(DRAFTS[0])).encode()
    post = f"POST /api/labels HTTP/1.1\r\n{own}Content-Type: application/json\r\n"
    return {
        "traversal": f"GET /../labels/ana.jsonl HTTP/1.1\r\n{own}\r\n".encode(),
        "encoded traversal": f"GET /%2e%2e/drafts.jsonl HTTP/1.1\r\n{own}\r\n".encode(),
        "foreign host": f"GET /api/state HTTP/1.1\r\nHost: evil.example:{port}\r\n\r\n".encode(),
        "oversized": f"{post}Content-Length: 10000000\r\n\r\n".encode() + label_json,
        "chunked": f"{post}Transfer-Encoding: chunked\r\n\r\n".encode()
        + f"{len(label_json):x}\r\n".encode()
        + label_json
        + b"\r\n0\r\n\r\n",
        "malformed": b"LABEL THIS PLEASE\r\n\r\n",
        "unknown method": f"PUT /api/labels HTTP/1.1\r\n{own}\r\n".encode(),
        "not json": f"{post}Content-Length: 5\r\n\r\n{{oops".encode(),
    }


EXPECTED_REFUSALS = {
    "traversal": 404,
    "encoded traversal": 404,
    "foreign host": 403,
    "oversized": 413,
    "chunked": 411,
    "malformed": 400,
    "unknown method": 501,
    "not json": 400,
}


def status_of(answer: bytes) -> int:
    """The status of an answer: its status line's, or for a request line too broken to have
    a version, the code in the error page the standard library sends without one."""
    found = re.match(rb"HTTP/1\.0 (\d{3}) ", answer) or re.search(rb"Error code: (\d{3})", answer)
    assert found, answer
    return int(found.group(1))


def test_each_kind_of_bad_request_is_refused_and_saves_nothing(tmp_path: Path) -> None:
    with serving(tmp_path) as (server, labels):
        port = server.server_address[1]
        answers = {kind: raw_answer(port, data) for kind, data in refusals(port).items()}
        assert request(port, "GET", "/api/state")[1]["labelled"] == 0
    assert {kind: status_of(answer) for kind, answer in answers.items()} == EXPECTED_REFUSALS
    assert not labels.exists()


@pytest.mark.parametrize("name", ["../../escaped", "team/ana", "ana\\\\bob", ".."])
def test_an_annotator_name_that_is_a_path_is_refused_in_one_line(
    tmp_path: Path,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    drafts = tmp_path / "work" / "drafts.jsonl"
    drafts.parent.mkdir()
    write_drafts(drafts, DRAFTS)
    # Were it to start, it would stop at once: the test is about where it would save.
    monkeypatch.setattr(LabelServer, "serve_forever", lambda self: None)

    code = label_server.run(["--drafts", str(drafts), "--annotator", name, "--port", "0"])

    said = capsys.readouterr()
    assert (code, said.out) == (label_server.EXIT_INPUT, "")
    assert said.err == (
        f"judge-label: error: --annotator {name!r}: give a name, not a path (no '/', '\\' "
        "or '..')\n"
    )
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["drafts.jsonl", "work"]


def caught_signals(pid: int) -> set[signal.Signals]:
    """The signals a process has handlers for, from its SigCgt mask in /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    (mask,) = re.findall(r"^SigCgt:\s*([0-9a-f]+)$", status, re.M)
    return {sig for sig in signal.Signals if int(mask, 16) >> (sig - 1) & 1}


@pytest.mark.browser
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_started_as_a_background_job_it_stops_on_a_signal_with_the_page_polling(
    tmp_path: Path, page: "Page", sig: signal.Signals
) -> None:
    """Started with SIGINT ignored, as `judge-label … &` from a script starts it: the signal
    stops it within 5 s while the page saves labels and polls, it says "stopped", exits 0, and
    every label the page heard "saved" for is on disk."""
    from playwright.sync_api import expect

    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        # Started with SIGINT ignored (tests/support/children.py), it handles both all the same.
        assert {signal.SIGINT, signal.SIGTERM} <= caught_signals(server.process.pid)
        page.goto(f"http://127.0.0.1:{port}/")
        for done, draft in enumerate(DRAFTS[:3], start=1):
            expect(page.locator("#position")).to_contain_text(draft.id)
            page.keyboard.press("g")
            page.locator("#reason").fill("every claim is in the passages")
            page.keyboard.press("Enter")
            expect(page.locator("#progress")).to_have_text(f"{done} of {len(DRAFTS)} labelled")
        page.evaluate("setInterval(() => fetch('/api/state').catch(() => {}), 20)")
        time.sleep(0.5)
        started = time.monotonic()
        code = server.stop(sig, seconds=5)
        took = time.monotonic() - started
    finally:
        server.kill()
    print(f"{sig.name} with the page polling every 20 ms: stopped in {took:.2f} s, exit {code}")
    assert code == 0, server.stderr()
    assert server.stdout().splitlines()[-1] == "stopped"
    saved = read_labels(tmp_path / "labels" / "ana.jsonl")
    assert [one.case_id for one in saved] == [draft.id for draft in DRAFTS[:3]]


@pytest.mark.subprocess
def test_a_second_signal_exits_at_once_while_a_stalled_request_is_in_flight(
    tmp_path: Path,
) -> None:
    """The first signal gives the request in flight its grace; a second one does not wait."""
    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        with half_sent(port):
            time.sleep(0.3)  # accepted, and holding its thread
            server.process.send_signal(signal.SIGTERM)
            time.sleep(0.3)  # stopping: no longer serving, waiting for the stalled request
            started = time.monotonic()
            code = server.stop(signal.SIGINT, seconds=5)
            took = time.monotonic() - started
    finally:
        server.kill()
    print(f"the second signal: exit {code} in {took:.2f} s")
    assert code == -signal.SIGINT  # ended by the signal itself
    assert took < label_server.STOP_GRACE
    assert "stopped" not in server.stdout()
    assert server.stderr().splitlines()[-1] == "judge-label: SIGINT again: exiting at once"


@pytest.mark.subprocess
def test_a_stalled_request_delays_the_stop_by_the_grace_at_most(tmp_path: Path) -> None:
    server = judge_label_on_drafts(tmp_path)
    try:
        port = port_of(server)
        with half_sent(port):
            time.sleep(0.3)
            started = time.monotonic()
            code = server.stop(signal.SIGTERM, seconds=5)
            took = time.monotonic() - started
    finally:
        server.kill()
    print(f"SIGTERM beside a stalled request: exit {code} in {took:.2f} s")
    assert code == 0
    assert label_server.STOP_GRACE <= took < label_server.STOP_GRACE + 2
    assert server.stdout().splitlines()[-1] == "stopped"
    assert server.stderr().splitlines() == [
        "judge-label: 1 unfinished request(s) dropped, none of them acknowledged"
    ]
