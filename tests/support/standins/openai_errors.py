"""An OpenAI API stand-in whose refusals quote the key they were sent, as OpenAI's 401 does.

OpenAI answers a bad key with "Incorrect API key provided: sk-…" and quotes part of it; this
server quotes it whole (a server is free to), so a test can look for the key in every file
an Inspect run writes. It judges synthetic cases: the refused ones get the 401, the others
gold's verdict, so a run both fails and scores.
"""

import time
from typing import Any, ClassVar

from farejudge.testing.synthetic_cases import CASE_ID, gold_reply
from tests.support.json_server import JsonHandler, chat_completion

BEARER = "Bearer "


def invalid_key_error(key: str) -> dict[str, Any]:
    """OpenAI's documented error body for a refused key, quoting `key`."""
    return {
        "error": {
            "message": f"Incorrect API key provided: {key}. You can find your API key at "
            "https://platform.openai.com/account/api-keys.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }


class EchoesKey(JsonHandler):
    """Chat completions: a 401 quoting the bearer key for the refused cases, else gold."""

    refused: ClassVar[frozenset[str]] = frozenset()
    keys: ClassVar[list[str]] = []
    """The keys the requests carried, in order: a test checks its key really was sent."""

    def do_POST(self) -> None:
        request = self.read_json()
        key = self.headers.get("Authorization", "").removeprefix(BEARER)
        EchoesKey.keys.append(key)
        found = CASE_ID.search(request["messages"][-1]["content"])
        case_id = found.group(1) if found else ""
        if case_id in EchoesKey.refused:
            self.send_json(401, invalid_key_error(key))
        else:
            reply = chat_completion(request["model"], gold_reply(case_id), completion_tokens=60)
            self.send_json(200, reply)


class EchoesKeySlowly(EchoesKey):
    """`EchoesKey`, each answer `delay` seconds late: a run that is still going when a test
    kills it, with some samples already in its log."""

    delay: ClassVar[float] = 0.3

    def do_POST(self) -> None:
        time.sleep(EchoesKeySlowly.delay)
        super().do_POST()
