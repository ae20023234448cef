"""An OpenAI-compatible judge for production drafts, its answers known: it finds the draft it
is shown by the assistant's answer in the prompt and replies as the test under way has set."""

from typing import Any, ClassVar

from farejudge.core.sample_case import ANSWER_TAG, prompt_text
from tests.support.json_server import JsonHandler, chat_completion


class ProductionJudge(JsonHandler):
    replies: ClassVar[dict[str, str]] = {}
    """The assistant's answer → the judge's reply."""
    requests: ClassVar[list[str]] = []
    """The answer of each request, in order of arrival."""

    def do_POST(self) -> None:
        body: dict[str, Any] = self.read_json()
        answer = prompt_text(str(body["messages"][-1]["content"]), ANSWER_TAG)
        reply = None if answer is None else self.replies.get(answer)
        if self.path != "/v1/chat/completions" or answer is None or reply is None:
            self.send_json(404, {"error": {"message": f"no reply set for {answer!r}"}})
            return
        self.requests.append(answer)
        self.send_json(200, chat_completion(body["model"], reply, completion_tokens=40))


def production_judge(replies: dict[str, str]) -> type[ProductionJudge]:
    """A handler class of its own, answering each answer with its reply."""
    return type("ProductionJudge", (ProductionJudge,), {"replies": replies, "requests": []})
