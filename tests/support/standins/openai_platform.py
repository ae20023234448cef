"""OpenAI's API on loopback: the Responses API and Chat Completions, as their references say.

`POST /v1/responses` answers a `response` object: for a reasoning model (gpt-5, o-series) a
`reasoning` output item, then a `message` item whose content is one `output_text`, and `usage`
with `input_tokens` and `output_tokens`. A `max_output_tokens` that leaves no room for the
answer after the reasoning ends the response `incomplete` (`max_output_tokens`) with the
reasoning item alone. `POST /v1/chat/completions` answers a `chat.completion`.

Refusals use OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`, with the
API's own wording where it is known:
- `max_output_tokens` below 16: 400 `integer_below_min_value`;
- `response_format` on the Responses API, which moved it to `text.format`: 400
  `unsupported_parameter`;
- a `json_schema` format with `strict: true` whose schema breaks the Structured Outputs rules
  (`strict_schema.py` beside this): 400, `invalid_json_schema` at `text.format.schema`, or at
  `response_format` on Chat Completions;
- a `json_object` format when the input never says "json": 400;
- a `json_schema` format for a model without Structured Outputs (o1-mini, per OpenAI's model
  pages): 400, in Chat Completions' words, the Responses API's parameter named.
"""

import json
from typing import Any, ClassVar

from tests.support.json_server import JsonHandler, chat_completion
from tests.support.standins.strict_schema import strict_schema_error

# The smallest `max_output_tokens` the Responses API takes.
MIN_OUTPUT_TOKENS = 16
VERDICT = json.dumps(
    {"grounded": True, "unsupported_claims": [], "reasoning": "Each claim is in a passage."}
)
# What a reasoning model spends before it answers, and what the answer costs.
REASONING_TOKENS = 64
ANSWER_TOKENS = 24
INPUT_TOKENS = 700


def error_body(message: str, param: str | None, code: str | None) -> dict[str, Any]:
    return {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def reasons(model: str) -> bool:
    """Whether the model writes reasoning before its answer (gpt-5 and the o-series do)."""
    return model.startswith(("gpt-5", "o1", "o3", "o4"))


# Models without Structured Outputs.
NO_STRUCTURED_OUTPUTS = frozenset({"o1-mini"})


def _format_error(
    fmt: dict[str, Any], model: str, says_json: bool, where: str, schema_param: str
) -> dict[str, Any] | None:
    """The refusal of a response format (`text.format` or `response_format`), if any."""
    kind = fmt.get("type")
    if kind == "json_object" and not says_json:
        return error_body(
            f"'{'input' if where == 'text.format' else 'messages'}' must contain the word "
            f"'json' in some form, to use '{where}' of type 'json_object'.",
            "input" if where == "text.format" else "messages",
            None,
        )
    if kind != "json_schema":
        return None
    if model in NO_STRUCTURED_OUTPUTS:
        return error_body(
            f"Invalid parameter: '{where}' of type 'json_schema' is not supported with this model.",
            where,
            None,
        )
    # The Responses API puts the schema's fields in `text.format` itself; Chat Completions
    # nests them in `response_format.json_schema`.
    spec = fmt if where == "text.format" else fmt.get("json_schema", {})
    if "name" not in spec:
        return error_body(
            f"Missing required parameter: '{where}.name'.",
            f"{where}.name",
            "missing_required_parameter",
        )
    problem = strict_schema_error(spec["name"], spec.get("schema")) if spec.get("strict") else None
    if problem is None:
        return None
    # Chat Completions gives no code for a refused schema; the Responses API does.
    code = "invalid_json_schema" if where == "text.format" else None
    return error_body(problem, schema_param, code)


def responses_refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    limit = body.get("max_output_tokens")
    if isinstance(limit, int) and limit < MIN_OUTPUT_TOKENS:
        return error_body(
            "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= "
            f"{MIN_OUTPUT_TOKENS}, but got {limit} instead.",
            "max_output_tokens",
            "integer_below_min_value",
        )
    if "response_format" in body:
        return error_body(
            "Unsupported parameter: 'response_format'. In the Responses API, this parameter "
            "has moved to 'text.format'. Try again with the new parameter. See the API "
            "documentation for more information: "
            "https://platform.openai.com/docs/api-reference/responses/create.",
            "response_format",
            "unsupported_parameter",
        )
    fmt = (body.get("text") or {}).get("format") or {"type": "text"}
    says_json = "json" in json.dumps(body.get("input", "")).lower()
    return _format_error(fmt, body["model"], says_json, "text.format", "text.format.schema")


def response_object(body: dict[str, Any], text: str) -> dict[str, Any]:
    """The Responses API's answer to `body`: reasoning (for a reasoning model), then `text`."""
    model = body["model"]
    reasoning = REASONING_TOKENS if reasons(model) else 0
    limit = body.get("max_output_tokens")
    complete = limit is None or limit >= reasoning + ANSWER_TOKENS
    output: list[dict[str, Any]] = []
    if reasoning:
        item: dict[str, Any] = {"type": "reasoning", "id": "rs_standin", "summary": []}
        if (body.get("reasoning") or {}).get("summary"):
            item["summary"] = [
                {"type": "summary_text", "text": "**Checking each claim against the passages**"}
            ]
        if "reasoning.encrypted_content" in (body.get("include") or []):
            item["encrypted_content"] = "gAAAAB-standin-encrypted-reasoning"
        output.append(item)
    if complete:
        output.append(
            {
                "type": "message",
                "id": "msg_standin",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    output_tokens: int = reasoning + ANSWER_TOKENS if complete or limit is None else limit
    return {
        "id": "resp_standin",
        "object": "response",
        "created_at": 1764547200,
        "status": "completed" if complete else "incomplete",
        "error": None,
        "incomplete_details": None if complete else {"reason": "max_output_tokens"},
        "instructions": body.get("instructions"),
        "max_output_tokens": limit,
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "reasoning": {"effort": "medium", "summary": None} if reasoning else {},
        "store": body.get("store", True),
        "temperature": 1.0,
        "text": body.get("text") or {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": INPUT_TOKENS,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": output_tokens,
            "output_tokens_details": {"reasoning_tokens": min(reasoning, output_tokens)},
            "total_tokens": INPUT_TOKENS + output_tokens,
        },
        "user": None,
        "metadata": {},
    }


def chat_refusal(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = body.get("response_format")
    if not isinstance(fmt, dict):
        return None
    says_json = "json" in json.dumps(body.get("messages", [])).lower()
    return _format_error(fmt, body["model"], says_json, "response_format", "response_format")


class OpenAIPlatform(JsonHandler):
    """Both APIs on one server, as api.openai.com serves them; every request is recorded."""

    requests: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    """(path, body) of each request, in order."""
    reply: ClassVar[str] = VERDICT

    def do_POST(self) -> None:
        body = self.read_json()
        self.requests.append((self.path, body))
        if self.path == "/v1/responses":
            refusal = responses_refusal(body)
            answer = response_object(body, self.reply)
        elif self.path == "/v1/chat/completions":
            refusal = chat_refusal(body)
            answer = chat_completion(body["model"], self.reply, completion_tokens=ANSWER_TOKENS)
        else:
            refusal = error_body(f"Invalid URL (POST {self.path})", None, None)
            self.send_json(404, refusal)
            return
        if refusal:
            self.send_json(400, refusal)
        else:
            self.send_json(200, answer)


def platform() -> type[OpenAIPlatform]:
    """A handler class of its own, so one test's requests are not another's."""
    return type("OpenAIPlatform", (OpenAIPlatform,), {"requests": []})
