"""Stand-ins for an outage: every request refused with an error a client retries.

OpenAI Chat Completions: `Unavailable` answers 503 with the error OpenAI documents for an
overloaded engine, `RateLimited` 429 with a `retry-after` header, as OpenAI does when a rate
limit is hit; both in OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`.
Anthropic's Messages API: `Overloaded` answers 529 `overloaded_error`, in Anthropic's error
body, `{"type": "error", "error": {"type", "message"}}`.

Each records when each request arrived and for which sample: the synthetic case (its id is in
the prompt) and the system prompt (a prompt version's instructions). A test then holds what a
sample's error says about its attempts against what the server saw, and times the retries
from the server's side, whatever Inspect's start-up took on a loaded machine.
"""

import hashlib
import json
import time
from collections import Counter
from typing import Any, ClassVar

from farejudge.testing.synthetic_cases import CASE_ID
from tests.support.json_server import JsonHandler

SampleKey = tuple[str, str]

ENGINE_OVERLOADED: dict[str, object] = {
    "error": {
        "message": "The engine is currently overloaded, please try again later.",
        "type": "server_error",
        "param": None,
        "code": None,
    }
}
ANTHROPIC_OVERLOADED: dict[str, object] = {
    "type": "error",
    "error": {"type": "overloaded_error", "message": "Overloaded"},
}
RATE_LIMITED: dict[str, object] = {
    "error": {
        "message": "Rate limit reached for m in organization org-standin on requests per min "
        "(RPM): Limit 3, Used 3, Requested 1. Please try again in 1s. Visit "
        "https://platform.openai.com/account/rate-limits to learn more.",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}


class Refusing(JsonHandler):
    """Refuses every POST with `status`, `body` and `headers_sent`, noting when and for whom."""

    status: ClassVar[int]
    body: ClassVar[dict[str, object]]
    headers_sent: ClassVar[dict[str, str]] = {}
    arrivals: ClassVar[list[tuple[SampleKey, float]]]
    """Each request's sample (`sample_key`) and monotonic arrival time; a test clears it."""

    def do_POST(self) -> None:
        type(self).arrivals.append((sample_key(self.read_json()), time.monotonic()))
        data = json.dumps(self.body).encode()
        self.send_response(self.status)
        # send_json has no way to add a header, and a 429 without retry-after is not OpenAI's.
        for name, value in {
            "Content-Type": "application/json",
            "Content-Length": str(len(data)),
            **self.headers_sent,
        }.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    @classmethod
    def requests(cls) -> Counter[SampleKey]:
        """Requests received per sample."""
        return Counter(key for key, _ in cls.arrivals)

    @classmethod
    def longest_retrying(cls) -> float:
        """The most seconds between a sample's first request and its last."""
        times: dict[SampleKey, list[float]] = {}
        for key, at in cls.arrivals:
            times.setdefault(key, []).append(at)
        return max(max(at) - min(at) for at in times.values())


class Unavailable(Refusing):
    status = 503
    body = ENGINE_OVERLOADED
    arrivals: ClassVar[list[tuple[SampleKey, float]]] = []


class RateLimited(Refusing):
    status = 429
    body = RATE_LIMITED
    headers_sent: ClassVar[dict[str, str]] = {
        "retry-after": "1",
        "x-ratelimit-limit-requests": "3",
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "1s",
    }
    arrivals: ClassVar[list[tuple[SampleKey, float]]] = []


class Overloaded(Refusing):
    status = 529
    body = ANTHROPIC_OVERLOADED
    arrivals: ClassVar[list[tuple[SampleKey, float]]] = []


def sample_key(body: dict[str, Any]) -> SampleKey:
    """The case id a chat request shows, and the SHA-256 of its system prompt.

    The digest is what a log's eval metadata records as `prompt_sha256`: the instructions are
    the system prompt, a `system` message in Chat Completions, the top-level `system` (a
    string or text blocks) in Anthropic's Messages API.
    """
    messages = body["messages"]
    found = CASE_ID.search(json.dumps(messages[-1]["content"]))
    system = body.get("system") or next(
        (m["content"] for m in messages if m["role"] == "system"), ""
    )
    if isinstance(system, list):
        system = "".join(block["text"] for block in system)
    return found.group(1) if found else "", hashlib.sha256(system.encode()).hexdigest()
