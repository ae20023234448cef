"""Requests to a running judge-label server as curl would send them: the headers given, no more."""

import http.client
import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

from farejudge.core.drafts import Draft
from tests.support.children import Child, start

OPEN_LINE = re.compile(r"^Open http://127\.0\.0\.1:(\d+)/")
JUDGE_LABEL = str(Path(sys.executable).parent / "judge-label")


def own_origin(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def submission(draft: Draft, reason: str = "every claim is in P1") -> dict[str, Any]:
    """What the page posts for a grounded label of `draft`."""
    return {"case_id": draft.id, "grounded": True, "spans": [], "reason": reason, "rules": []}


def request(
    port: int,
    method: str,
    path: str,
    body: object = None,
    headers: dict[str, str] | None = None,
    timeout: float = 10,
) -> tuple[int, Any]:
    """The status and the JSON answer; a body is sent as application/json."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = {} if body is None else {"Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data, headers={**sent, **(headers or {})})
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def post_label(
    port: int, body: object, origin: str | None = "own", **headers: str
) -> tuple[int, Any]:
    """POST /api/labels with `Origin: origin` ("own": the server's; None: no Origin)."""
    sent = dict(headers)
    if origin is not None:
        sent["Origin"] = own_origin(port) if origin == "own" else origin
    return request(port, "POST", "/api/labels", body, sent)


def port_of(server: Child) -> int:
    """The port a judge-label process says it serves on (its stdout's `Open` line)."""
    return int(server.wait_for_line(OPEN_LINE.pattern).group(1))


def judge_label(command: list[str], logs: Path, *args: str) -> Child:
    """`command` (judge-label, or a stand-in for it) started on a free port as a background
    job would start it (SIGINT ignored), its output in `logs/`."""
    return start("judge-label", [*command, "--port", "0", *args], logs)


def stopped(server: Child, sig: signal.Signals = signal.SIGINT) -> str:
    """Stop a judge-label process with `sig` (Ctrl-C by default): what it wrote on stderr."""
    server.stop(sig)
    return server.stderr()
