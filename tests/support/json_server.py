"""A request handler for stand-in OpenAI-compatible servers on loopback: replies in JSON."""

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def chat_completion(model: str, content: str, completion_tokens: int) -> dict[str, Any]:
    """An OpenAI chat completion answering `content`, on a 700-token prompt."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": 700,
            "completion_tokens": completion_tokens,
            "total_tokens": 700 + completion_tokens,
        },
    }


class JsonHandler(BaseHTTPRequestHandler):
    def read_json(self) -> Any:
        """The request's JSON body."""
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def send_json(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a test reads what the server saw from what its handler recorded."""


@contextmanager
def serving(handler: type[JsonHandler]) -> Iterator[str]:
    """The handler served on a free loopback port: its /v1 base URL, until the block ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        thread.join()
