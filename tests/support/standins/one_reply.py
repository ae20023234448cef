"""A stand-in that answers every request with the one reply the test under way has set.

Any provider's wire format: the test gives the HTTP status and the JSON body, per path
(`/v1/chat/completions`, `/v1/responses`, `/v1/messages`). Anthropic's token counting
(`/v1/messages/count_tokens`) is answered with a count.
"""

from typing import Any, ClassVar

from tests.support.json_server import JsonHandler


class OneReply(JsonHandler):
    replies: ClassVar[dict[str, tuple[int, dict[str, Any]]]] = {}
    """path → (status, body)."""
    requests: ClassVar[list[str]] = []
    """The path of each request, in order."""

    def do_POST(self) -> None:
        self.read_json()
        self.requests.append(self.path)
        if self.path.endswith("/count_tokens"):
            self.send_json(200, {"input_tokens": 40})
            return
        status, body = self.replies.get(self.path, (404, {"error": f"no reply for {self.path}"}))
        self.send_json(status, body)


def one_reply() -> type[OneReply]:
    """A handler class of its own, so one test's replies and requests are not another's."""
    return type("OneReply", (OneReply,), {"replies": {}, "requests": []})
