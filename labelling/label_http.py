"""The labelling page's HTTP side: the server, on loopback only, and its request handler.

Only the page itself can save: a POST must come from the server's own origin (its Origin
header, or its Referer when there is none) and name it in Host. Each connection is served on
its own, so a slow or stalled client holds up no one else: it has 10 seconds to send its whole
request, and past 128 connections open at once a new one is answered 503 at once.
"""

import io
import json
import logging
import re
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit

from farejudge.labelling.label_session import Rejected, Session

HOST = "127.0.0.1"
LOG = logging.getLogger(__name__)
STATIC = files("farejudge.labelling") / "static"
# A label is a few hundred bytes; anything far larger is not one.
MAX_BODY = 64 * 1024
MAX_CONNECTIONS = 128
"""Connections served at once, each in a thread of its own; the page opens one or two at a
time. Past this a new connection is answered 503 at once, never queued behind the others."""
READ_TIMEOUT = 10.0
"""Seconds a connection has, from when it is accepted, to send its whole request: head and
body. A client sending it a byte at a time holds its own thread no longer."""
WRITE_TIMEOUT = 10.0
"""Seconds each write of an answer may wait for a client that does not read it."""
ROUTES = {
    "/": ("label.html", "text/html; charset=utf-8"),
    "/label.js": ("label.js", "text/javascript; charset=utf-8"),
    "/label.css": ("label.css", "text/css; charset=utf-8"),
}
DRAFT_ROUTE = re.compile(r"/api/drafts/(\d{1,9})")
# Only this server's own files: the page works offline, and nothing it shows can load more.
# The one data: image is the page's empty icon, so the browser asks for no /favicon.ico.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
    "frame-ancestors 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    # Not "no-referrer": under it a browser may send `Origin: null` with the page's own POST,
    # which the origin check must refuse. Nothing the page loads is on another origin anyway.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


class LabelServer(ThreadingHTTPServer):
    """One thread per connection, at most `max_connections` at once: past them a connection
    is answered 503 and closed at once, so no client waits behind a stalled one. Each has
    `read_timeout` seconds to send its whole request."""

    # Connections arriving together wait in the kernel's queue for the accept, not refused.
    request_queue_size = 64

    def __init__(
        self,
        port: int,
        session: Session,
        max_connections: int = MAX_CONNECTIONS,
        read_timeout: float = READ_TIMEOUT,
    ) -> None:
        self.session = session
        self.read_timeout = read_timeout
        self.static = {route: (STATIC / name).read_bytes() for route, (name, _) in ROUTES.items()}
        self._slots = threading.BoundedSemaphore(max_connections)
        self._in_flight: set[threading.Thread] = set()
        self._in_flight_lock = threading.Lock()
        self._busy = _answer(
            503, {"error": f"the labelling server has {max_connections} connections open"}
        )
        super().__init__((HOST, port), LabelHandler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    @property
    def origins(self) -> set[str]:
        """What the page's own requests send as Origin: the server as the page was opened."""
        port = self.server_address[1]
        return {f"http://{HOST}:{port}", f"http://localhost:{port}"}

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self._refuse(request)
            return
        try:
            super().process_request(request, client_address)
        except Exception:
            # The thread never started (it releases its own slot once it has). Not
            # BaseException: a Ctrl-C can land after the start, while this thread waits to
            # hear it began, and a second release would raise ValueError over the Ctrl-C and
            # keep the server serving.
            self._slots.release()
            raise

    def _refuse(self, request: socket.socket) -> None:
        """Answer 503 without reading the request: a few hundred bytes into a new
        connection's empty send buffer, so the accepting thread never waits on it."""
        try:
            request.settimeout(0)
            request.send(self._busy)
        except OSError:
            pass  # the client is gone, or its buffer is full: closing says enough
        self.shutdown_request(request)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        with self._in_flight_lock:
            self._in_flight.add(threading.current_thread())
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._in_flight_lock:
                self._in_flight.discard(threading.current_thread())
            self._slots.release()

    def finish_in_flight(self, seconds: float) -> int:
        """Wait up to `seconds` for the requests being served: how many are still running.
        Their threads are daemons, so those end with the process."""
        deadline = time.monotonic() + seconds
        with self._in_flight_lock:
            serving = list(self._in_flight)
        for thread in serving:
            thread.join(max(0.0, deadline - time.monotonic()))
        return sum(thread.is_alive() for thread in serving)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that hung up or reset its connection is no fault of the server's.
        if isinstance(sys.exc_info()[1], ConnectionError):
            LOG.debug("%s:%s hung up: %s", *client_address[:2], sys.exc_info()[1])
            return
        super().handle_error(request, client_address)


def _answer(status: int, body: object) -> bytes:
    """A whole HTTP/1.0 answer as bytes, with the page's security headers."""
    data = json.dumps(body).encode()
    head = [
        f"HTTP/1.0 {status} {HTTPStatus(status).phrase}",
        "Content-Type: application/json; charset=utf-8",
        f"Content-Length: {len(data)}",
        "Connection: close",
        *(f"{name}: {value}" for name, value in SECURITY_HEADERS.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


class _ByDeadline(io.RawIOBase):
    """A socket's reading side where each read waits only for the time left until a
    deadline: a request's head and body together arrive by it, however they trickle in."""

    def __init__(self, connection: socket.socket, deadline: float) -> None:
        self._connection = connection
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive whole in time")
        self._connection.settimeout(left)
        return self._connection.recv_into(buffer)


class LabelHandler(BaseHTTPRequestHandler):
    server: LabelServer

    def setup(self) -> None:
        super().setup()
        deadline = time.monotonic() + self.server.read_timeout
        self.rfile = io.BufferedReader(_ByDeadline(self.connection, deadline))

    def log_message(self, format: str, *args: Any) -> None:
        """To the debug log: the annotator's terminal shows the URL and the server's own
        errors, not each request, refusal or client that went away."""
        LOG.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.connection.settimeout(WRITE_TIMEOUT)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in SECURITY_HEADERS.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_json(self, status: int, body: object) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self._send(status, "application/json; charset=utf-8", data)

    def _trusted_host(self) -> bool:
        # A page on another site that rebinds its DNS name to 127.0.0.1 sends its own Host.
        port = self.server.server_address[1]
        if self.headers.get("Host") in {f"{HOST}:{port}", f"localhost:{port}"}:
            return True
        self._send_json(403, {"error": "this server answers only to its loopback address"})
        return False

    def _own_origin(self) -> bool:
        # A page on any other site can POST here (a form, or fetch in no-cors mode) and the
        # browser sends the request even though it hides the answer: only the server's own
        # page may save. The page's fetch always sends Origin; Referer is the fallback.
        origin = self.headers.get("Origin")
        if origin is None and (referer := self.headers.get("Referer")) is not None:
            parts = urlsplit(referer)
            origin = f"{parts.scheme}://{parts.netloc}"
        if origin in self.server.origins:
            return True
        sent = "no Origin or Referer" if origin is None else f"Origin {origin}"
        self._send_json(403, {"error": f"labels are saved only from this server's page ({sent})"})
        return False

    def do_GET(self) -> None:
        if not self._trusted_host():
            return
        path = urlsplit(self.path).path
        session = self.server.session
        try:
            if path in ROUTES:
                self._send(200, ROUTES[path][1], self.server.static[path])
            elif path == "/api/state":
                self._send_json(200, session.state())
            elif path == "/api/guide":
                guide = session.guide
                self._send_json(200, {"text": guide.text, "rules": guide.rules})
            elif found := DRAFT_ROUTE.fullmatch(path):
                self._send_json(200, session.draft_view(int(found.group(1))))
            else:
                raise Rejected(404, f"no such page: {path}")
        except Rejected as err:
            self._send_json(err.status, {"error": err.message})

    def _body(self) -> bytes:
        if urlsplit(self.path).path != "/api/labels":
            raise Rejected(404, "labels are posted to /api/labels")
        if self.headers.get_content_type() != "application/json":
            raise Rejected(415, "send the label as application/json")
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():
            raise Rejected(411, "a Content-Length is required")
        if int(length) > MAX_BODY:
            raise Rejected(413, f"a label is at most {MAX_BODY} bytes")
        return self._read(int(length))

    def _read(self, length: int) -> bytes:
        """The body, by the connection's deadline (`_ByDeadline`)."""
        chunks, left = [], length
        try:
            while left:
                chunk = self.rfile.read1(left)
                if not chunk:
                    raise Rejected(400, f"the body ended {left} bytes short of its Content-Length")
                chunks.append(chunk)
                left -= len(chunk)
        except TimeoutError:
            seconds = f"{self.server.read_timeout:g}"
            raise Rejected(408, f"the label did not arrive whole within {seconds} s") from None
        return b"".join(chunks)

    def do_POST(self) -> None:
        if not self._trusted_host() or not self._own_origin():
            return
        session = self.server.session
        try:
            label = session.submit(self._body())
        except Rejected as err:
            self._send_json(err.status, {"error": err.message})
            return
        self._send_json(200, {"saved": label.case_id, "state": session.state()})
