"""An OpenAI-compatible judge server for synthetic cases, shared by several worker processes.

It answers each case by the id its prompt shows: gold's verdict, except on a quarter of the
cases, picked per prompt text, where it says the opposite; so versions differ, and a run
reproduces exactly whichever process sends it. Every request is counted.
"""

import json
import threading
import zlib
from typing import Any, ClassVar

from farejudge.testing.synthetic_cases import CASE_ID, synthetic_case
from tests.support.json_server import JsonHandler, chat_completion


def verdict(case_id: str, instructions: str) -> str:
    label = synthetic_case(int(case_id.removeprefix("syn-")))["label"]
    if zlib.crc32(f"{case_id}|{instructions}".encode()) % 4 == 0:
        claims = [] if not label["grounded"] else [f"the fare of {case_id}"]
        label = {"grounded": not label["grounded"], "unsupported_claims": claims}
    return json.dumps({**label, "reasoning": "Read against the passage."})


class SyntheticJudge(JsonHandler):
    requests: ClassVar[list[str]] = []
    """The case id of each request, in order of arrival."""
    lock: ClassVar[threading.Lock] = threading.Lock()

    def do_POST(self) -> None:
        body: dict[str, Any] = self.read_json()
        messages = body["messages"]
        found = CASE_ID.search(str(messages[-1]["content"]))
        if self.path != "/v1/chat/completions" or found is None:
            self.send_json(404, {"error": {"message": f"not a synthetic case: {self.path}"}})
            return
        with self.lock:
            self.requests.append(found.group(1))
        reply = verdict(found.group(1), str(messages[0]["content"]))
        self.send_json(200, chat_completion(body["model"], reply, completion_tokens=40))


def synthetic_judge_server() -> type[SyntheticJudge]:
    """A handler class of its own, so one test's requests are not another's."""
    return type("SyntheticJudge", (SyntheticJudge,), {"requests": []})
