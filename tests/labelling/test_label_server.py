"""judge-label saves only what its own page sends: a POST from any other origin is refused, a
half-sent body is dropped after the read timeout, and a few workers serve every connection.

Curl-level requests (http.client, headers exactly as given) and one real cross-origin page in
headless Chromium.
"""

import errno
import http.server
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from farejudge.labelling import label_server
from farejudge.labelling.label_file import read_labels
from farejudge.labelling.label_server import LabelServer, open_session
from tests.support.browser import GUIDE
from tests.support.label_http import own_origin, post_label, request, submission
from tests.support.labels import DRAFTS, write_drafts

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


def workers_busy() -> int:
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
def test_thirty_half_sent_bodies_hold_a_few_workers_and_a_normal_request_is_served(
    tmp_path: Path,
) -> None:
    with serving(tmp_path, workers=4, read_timeout=1.0) as (server, labels):
        port = server.server_address[1]
        before = workers_busy()
        slow = [half_sent(port) for _ in range(30)]
        peak = 0
        served: list[int] = []
        normal = threading.Thread(
            target=lambda: served.append(post_label(port, submission(DRAFTS[0]))[0])
        )
        normal.start()
        while normal.is_alive():
            peak = max(peak, workers_busy() - before)
            time.sleep(0.02)
        normal.join()
        dropped = [answer_of(sock, timeout=10) for sock in slow]
        for sock in slow:
            sock.close()
    assert 1 <= peak <= 4
    assert served == [200]
    assert all(answer.startswith(b"HTTP/1.0 408 ") for answer in dropped)
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
    real_post = label_server.LabelHandler.do_POST

    def recorded(handler: label_server.LabelHandler) -> None:
        seen.append((handler.headers.get("Origin"), handler.headers.get_content_type()))
        real_post(handler)

    monkeypatch.setattr(label_server.LabelHandler, "do_POST", recorded)
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
