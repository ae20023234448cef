"""judge-label: the blind labelling page, served on loopback to one annotator over one drafts file.

    judge-label --drafts drafts/intake.jsonl --annotator ana
    judge-label --drafts drafts/intake.jsonl --annotator ana --port 8800 --guide datasets/README.md

The page shows each draft as the v3 judge sees it and never anything else: no gold, verdict,
rationale or rules. Each submitted label is appended to the annotator's labels file (and on
disk) before the page hears "saved", so stopping the server loses nothing submitted; started
again on the same files, it resumes at the first draft without a label.

Only the page itself can save: a POST must come from the server's own origin (its Origin
header, or its Referer when there is none) and name it in Host. Each connection is served on
its own, so a slow or stalled client holds up no one else: it has 10 seconds to send its whole
request, and past 128 connections open at once a new one is answered 503 at once.

It stops on Ctrl-C (SIGINT) or SIGTERM, whatever its parent left them as (`core/stop_signals`):
it accepts no more, gives the requests in flight up to 2 seconds, says "stopped" and exits 0.
A second signal exits at once.

Exit status: 0 stopped by a signal, 2 the input was unusable; a second signal ends it by that
signal (a shell reports 128 + its number).
"""

import argparse
import datetime
import io
import json
import logging
import re
import socket
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError

from farejudge.core.case_schema import STRICT, NonEmpty
from farejudge.core.commands import Command
from farejudge.core.drafts import Draft, read_drafts
from farejudge.core.errors import InputError
from farejudge.core.package_data import DATASETS
from farejudge.core.stop_signals import stop_signals_owned
from farejudge.core.text_input import read_text
from farejudge.labelling.label_file import (
    append_label,
    latest_labels,
    read_numbered_labels,
    recover_torn_tail,
)
from farejudge.labelling.label_match import Unmatched, unmatched
from farejudge.labelling.records import Label, Span, span_problems

EXIT_OK, EXIT_INPUT = 0, 2
HOST = "127.0.0.1"
LOG = logging.getLogger(__name__)
DEFAULT_GUIDE = DATASETS / "README.md"
STATIC = files("farejudge.labelling") / "static"
GUIDE_SECTIONS = ("Labeling guide", "Rule vocabulary")
# What the page may see of a draft: what the judge sees, and the id to label it by. The
# category is left out because it hints at the verdict (every `partial` case is ungrounded).
SHOWN_FIELDS = {"id", "question", "prior_turns", "passages", "answer"}
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
STOP_GRACE = 2.0
"""Seconds the requests in flight have to finish once a stop signal came. A save takes
milliseconds; what is still running then is a client too slow to send its label, which was
never acknowledged, and is dropped with the process."""
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


@dataclass(frozen=True)
class Guide:
    text: str
    rules: list[str]


class Submission(BaseModel):
    """What the page posts: a label less what the server knows (hash, annotator, time)."""

    model_config = STRICT

    case_id: NonEmpty
    grounded: bool
    spans: list[Span]
    reason: NonEmpty
    rules: list[str]


class Rejected(Exception):
    """A request the server refuses, with the HTTP status and the one line the page shows."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _section(text: str, heading: str, path: Path) -> str:
    found = re.search(rf"^## {re.escape(heading)}\n.*?(?=^## |\Z)", text, re.S | re.M)
    if not found:
        raise InputError([f"{path}: no '## {heading}' section"])
    return found.group(0).strip()


def read_guide(path: Path) -> Guide:
    """The labelling guide and rule vocabulary sections, and the rule ids the vocabulary defines."""
    text = read_text(path, str(path))
    guide, vocabulary = (_section(text, heading, path) for heading in GUIDE_SECTIONS)
    rules = re.findall(r"^\| `([^`]+)` \|", vocabulary, re.M)
    if not rules:
        raise InputError([f"{path}: the '## Rule vocabulary' table defines no rule ids"])
    return Guide(text=f"{guide}\n\n{vocabulary}", rules=rules)


def counted_labels(drafts: list[Draft], labels: list[Label]) -> dict[str, Label]:
    """Each draft's current label; one given to other content than the draft's does not count."""
    hashes = {draft.id: draft.content_sha256 for draft in drafts}
    return latest_labels([lab for lab in labels if hashes.get(lab.case_id) == lab.content_sha256])


def _one_line(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'label'}: {e['msg']}" for e in err.errors()
    )


@dataclass
class Session:
    """One annotator over one drafts file: the drafts, and the labels given so far."""

    drafts: list[Draft]
    labels_path: Path
    annotator: str
    guide: Guide
    current: dict[str, Label]
    recovered: str | None = None
    """The one line saying a torn last line was moved out of the labels file, if one was."""
    unmatched: list[Unmatched] = field(default_factory=list)
    """The labels in the file that match no draft, as the file was when the server started:
    kept in the file, counted for nothing, and shown until a label of their draft is saved."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def attention(self) -> list[str]:
        """One line for each label in the file that matches no draft (see `unmatched`)."""
        with self.lock:
            found = list(self.unmatched)
        return [each.line_text(str(self.labels_path)) for each in found]

    def state(self) -> dict[str, Any]:
        with self.lock:
            done = [draft.id in self.current for draft in self.drafts]
        return {
            "annotator": self.annotator,
            "labels_file": str(self.labels_path),
            "total": len(done),
            "labelled": sum(done),
            "next": done.index(False) if not all(done) else None,
            "attention": self.attention,
        }

    def draft_view(self, index: int) -> dict[str, Any]:
        if index >= len(self.drafts):
            raise Rejected(404, f"no draft {index}: there are {len(self.drafts)}")
        draft = self.drafts[index]
        with self.lock:
            labelled = draft.id in self.current
            found = [each for each in self.unmatched if each.case_id == draft.id]
        shown = draft.model_dump(include=SHOWN_FIELDS, mode="json")
        attention = [
            f"Line {each.line} of your labels file is a label of this draft that does not "
            f"match it: {each.why}. Check this draft and save its label again."
            for each in found
        ]
        return {"index": index, "labelled": labelled, "draft": shown, "attention": attention}

    def _label(self, body: bytes) -> Label:
        try:
            sent = Submission.model_validate_json(body)
        except ValidationError as err:
            raise Rejected(400, _one_line(err)) from err
        draft = next((d for d in self.drafts if d.id == sent.case_id), None)
        if draft is None:
            raise Rejected(404, f"no draft {sent.case_id!r} in this drafts file")
        if not sent.reason.strip() or "\n" in sent.reason or "\r" in sent.reason:
            raise Rejected(400, "the reason must be one non-blank line")
        unknown = [rule for rule in sent.rules if rule not in self.guide.rules]
        if unknown:
            raise Rejected(400, f"not in the rule vocabulary: {', '.join(unknown)}")
        try:
            label = Label(
                case_id=draft.id,
                content_sha256=draft.content_sha256,
                annotator=self.annotator,
                grounded=sent.grounded,
                spans=sent.spans,
                reason=sent.reason,
                rules=sent.rules,
                labelled_at=datetime.datetime.now(datetime.UTC),
            )
        except ValidationError as err:
            raise Rejected(400, _one_line(err)) from err
        problems = span_problems(label, draft.answer)
        if problems:
            raise Rejected(400, "; ".join(problems))
        return label

    def submit(self, body: bytes) -> Label:
        """The label checked, then on disk, and only then counted."""
        label = self._label(body)
        with self.lock:
            try:
                append_label(self.labels_path, label)
            except OSError as err:
                raise Rejected(500, f"{self.labels_path}: {err.strerror or err}") from None
            self.current[label.case_id] = label
            # The draft's own label now: what the file held of it before is history.
            self.unmatched = [u for u in self.unmatched if u.case_id != label.case_id]
        return label


def open_session(drafts: Path, labels: Path, annotator: str, guide: Path) -> Session:
    """The session as the files leave it; an InputError names every problem with them."""
    if not drafts.is_file():
        raise InputError([f"{drafts}: no such drafts file"])
    read = read_drafts(drafts)
    # Before the first append: this server is the one process writing the labels file.
    recovered = recover_torn_tail(labels)
    numbered = read_numbered_labels(labels)
    given = [label for _, label in numbered]
    others = sorted({lab.annotator for lab in given} - {annotator})
    if others:
        # One file per annotator: counting someone else's labels would skip drafts.
        raise InputError([f"{labels}: holds labels by {', '.join(others)}, not {annotator}"])
    current = counted_labels(read, given)
    return Session(
        read, labels, annotator, read_guide(guide), current, recovered, unmatched(read, numbered)
    )


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


def serve(
    drafts: Path, labels: Path, annotator: str, port: int, guide: Path = DEFAULT_GUIDE
) -> LabelServer:
    """The server bound to 127.0.0.1:`port` (0: a free port), not yet serving: the caller runs
    `serve_forever`, in a thread or not, and `shutdown` and `server_close` stop it."""
    return LabelServer(port, open_session(drafts, labels, annotator, guide))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="judge-label",
        description="Serve the blind labelling page for one annotator over one drafts file, "
        "on 127.0.0.1 only.",
    )
    parser.add_argument("--drafts", type=Path, required=True, help="the drafts file (JSON Lines)")
    parser.add_argument(
        "--annotator",
        required=True,
        help="who labels: goes into every label and names the labels file (a name, not a path)",
    )
    parser.add_argument(
        "--labels",
        type=Path,
        help="the labels file to append to (default: labels/ANNOTATOR.jsonl beside the drafts)",
    )
    parser.add_argument("--port", type=int, default=8765, help="the port (0: any free one)")
    parser.add_argument(
        "--guide", type=Path, default=DEFAULT_GUIDE, help="the dataset card with the guide"
    )
    return parser


def _path_like(name: str) -> bool:
    """Whether an annotator's name would lead the default labels file out of `labels/`."""
    return any(part in name for part in ("/", "\\", ".."))


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if _path_like(args.annotator):
        print(
            f"judge-label: error: --annotator {args.annotator!r}: give a name, not a path "
            "(no '/', '\\' or '..')",
            file=sys.stderr,
        )
        return EXIT_INPUT
    labels = args.labels or args.drafts.parent / "labels" / f"{args.annotator}.jsonl"
    try:
        session = open_session(args.drafts, labels, args.annotator, args.guide)
    except InputError as err:
        print(f"judge-label: error: {err}", file=sys.stderr)
        return EXIT_INPUT
    try:
        server = LabelServer(args.port, session)
    except OSError as err:
        print(f"judge-label: error: port {args.port}: {err.strerror or err}", file=sys.stderr)
        return EXIT_INPUT
    if session.recovered is not None:
        print(f"judge-label: {session.recovered}", file=sys.stderr)
    for line in session.attention:
        print(f"judge-label: {line}", file=sys.stderr)
    print(f"Labelling {args.drafts} as {args.annotator}, saving to {labels}")

    def stop() -> None:
        # shutdown() waits for serve_forever, which may be running in this very thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    with stop_signals_owned("judge-label", stop):
        # Said once the signals are its own: whoever reads this line may stop it at once.
        print(
            f"Open {server.url}  (Ctrl-C stops; every saved label is already on disk)",
            flush=True,
        )
        try:
            server.serve_forever()
        finally:
            dropped = server.finish_in_flight(STOP_GRACE)
            server.server_close()
    if dropped:
        print(
            f"judge-label: {dropped} unfinished request(s) dropped, none of them acknowledged",
            file=sys.stderr,
        )
    print("stopped", flush=True)
    return EXIT_OK


main = Command(
    "judge-label",
    {
        0: "stopped by SIGINT or SIGTERM, every saved label on disk (a second signal ends it by "
        "that signal: a shell's 128 + its number)",
        2: "input it cannot use, or a port it cannot take: one line",
    },
    run,
)
