"""Chat servers on loopback that answer with token logprobs, each in its own wire shape.

OpenAI's Chat Completions (`choices[].logprobs.content[]`: token, logprob, bytes, and
`top_logprobs` of the same), vLLM's OpenAI-compatible server (the same shape, bytes given),
llama-cpp-python's server (bytes null, the chosen token repeated among its alternatives), and a
server that refuses the option the way OpenAI refuses it for a model without logprobs.
"""

from typing import Any, ClassVar

from tests.support.json_server import JsonHandler, chat_completion

Token = tuple[str, float, list[tuple[str, float]]]
"""A token as sent: its text, its logprob, its alternatives."""

REFUSAL = "logprobs is not supported with this model"


def logprob_content(tokens: list[Token], with_bytes: bool) -> list[dict[str, Any]]:
    """`logprobs.content` of a chat completion choice."""

    def spelt(text: str) -> list[int] | None:
        return list(text.encode()) if with_bytes else None

    return [
        {
            "token": text,
            "logprob": logprob,
            "bytes": spelt(text),
            "top_logprobs": [{"token": t, "logprob": lp, "bytes": spelt(t)} for t, lp in top],
        }
        for text, logprob, top in tokens
    ]


class LogprobServer(JsonHandler):
    """Answers every chat request with `reply`, its tokens' logprobs when they are asked for.

    `refuses` answers a request that asks for logprobs with OpenAI's 400 instead.
    """

    reply: ClassVar[str] = ""
    tokens: ClassVar[list[Token]] = []
    with_bytes: ClassVar[bool] = True
    refuses: ClassVar[bool] = False
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        request = self.read_json()
        type(self).requests.append(request)
        asked = bool(request.get("logprobs"))
        if asked and self.refuses:
            error = {"message": REFUSAL, "type": "invalid_request_error", "param": "logprobs"}
            self.send_json(400, {"error": {**error, "code": None}})
            return
        body = chat_completion(str(request.get("model")), self.reply, len(self.tokens))
        if asked:
            body["choices"][0]["logprobs"] = {
                "content": logprob_content(self.tokens, self.with_bytes),
                "refusal": None,
            }
        self.send_json(200, body)


class MessagesServer(JsonHandler):
    """Anthropic's Messages API: a text block, and no way to ask for logprobs."""

    reply: ClassVar[str] = ""
    requests: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        request = self.read_json()
        type(self).requests.append(request)
        if self.path.endswith("/count_tokens"):
            self.send_json(200, {"input_tokens": 40})
            return
        self.send_json(
            200,
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": request.get("model"),
                "content": [{"type": "text", "text": self.reply}],
                "stop_reason": "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": 700, "output_tokens": 40},
            },
        )
