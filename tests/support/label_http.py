"""Requests to a running judge-label server as curl would send them: the headers given, no more."""

import http.client
import json
import re
import subprocess
from typing import Any

from farejudge.labelling.records import Draft

OPEN_LINE = re.compile(r"^Open http://127\.0\.0\.1:(\d+)/")


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
