"""Requests to a running judge-label server as curl would send them: the headers given, no more."""

import http.client
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from farejudge.core.drafts import Draft

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


def port_of(server: "subprocess.Popen[str]") -> int:
    """The port a judge-label process says it serves on (its stdout's `Open` line)."""
    assert server.stdout is not None
    for line in server.stdout:
        if found := OPEN_LINE.match(line):
            return int(found.group(1))
    raise AssertionError(f"judge-label ended without serving (exit {server.wait()})")


def _ctrl_c_reaches_it() -> None:
    # A shell starts a background job with SIGINT ignored, and a child inherits that: the
    # suite run as one (`bash .ci/run &`) would send Ctrl-C to a server that cannot hear it.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def judge_label(command: list[str], *args: str) -> "subprocess.Popen[str]":
    """`command` (judge-label, or a stand-in for it) started on a free port, its output piped."""
    return subprocess.Popen(
        [*command, "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_ctrl_c_reaches_it,
    )


def stopped(server: "subprocess.Popen[str]") -> str:
    """Stop a judge-label process with Ctrl-C: what it wrote on stderr."""
    server.send_signal(signal.SIGINT)
    try:
        _, err = server.communicate(timeout=30)
    finally:
        server.kill()  # a no-op once it has exited; else it would outlive the suite
    return err
