"""OpenAI's Batch API on loopback, beside Chat Completions, as its reference describes it.

A client uploads a JSON Lines file of requests (`POST /v1/files`, multipart, `purpose=batch`),
creates a batch over it (`POST /v1/batches`), polls it (`GET /v1/batches/{id}`) and, once it is
`completed`, downloads the results (`GET /v1/files/{id}/content`): one line per request with its
`custom_id` and `response: {status_code, request_id, body}`, `error: null`. Requests that failed
go to the batch's `error_file_id`. A batch the service could not run is `failed`, with
`errors.data` and no output file.

Each batched request is answered as `POST /v1/chat/completions` would be (the verdict, or the
400 it refuses), so the schema a batched request carries is checked as a direct one's is.
`fail_batches` makes every batch fail as a whole, as a batch that OpenAI could not run does.
"""

import json
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, ClassVar

from tests.support.json_server import chat_completion
from tests.support.standins.openai_platform import (
    ANSWER_TOKENS,
    OpenAIPlatform,
    chat_refusal,
    response_object,
    responses_refusal,
)

CREATED_AT = 1764547200
BATCH_FAILURE = {"code": "token_limit_exceeded", "message": "Enqueued token limit reached."}


def _uploaded_file(content_type: str, body: bytes) -> bytes:
    """The `file` part of a multipart upload."""
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            assert isinstance(payload, bytes)
            return payload
    raise ValueError("no file part in the upload")


class OpenAIBatchPlatform(OpenAIPlatform):
    """Chat Completions and the Batch API; every request, direct or batched, is recorded."""

    files: ClassVar[dict[str, bytes]] = {}
    batches: ClassVar[dict[str, dict[str, Any]]] = {}
    batched: ClassVar[list[dict[str, Any]]] = []
    """The body of each batched request, in the order its batch was created."""
    fail_batches: ClassVar[bool] = False

    def do_POST(self) -> None:
        if self.path == "/v1/files":
            data = self.rfile.read(int(self.headers["Content-Length"]))
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = _uploaded_file(self.headers["Content-Type"], data)
            self.requests.append((self.path, {"id": file_id}))
            self.send_json(200, self._file_object(file_id, "batch"))
        elif self.path == "/v1/batches":
            body = self.read_json()
            self.requests.append((self.path, body))
            self.send_json(200, self._create_batch(body))
        else:
            super().do_POST()

    def do_GET(self) -> None:
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["v1", "batches"] and parts[2] in self.batches:
            self.send_json(200, self.batches[parts[2]])
        elif parts[:2] == ["v1", "files"] and parts[-1] == "content" and parts[2] in self.files:
            data = self.files[parts[2]]
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_json(404, {"error": {"message": f"No such object: {self.path}"}})

    def _file_object(self, file_id: str, purpose: str) -> dict[str, Any]:
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(self.files[file_id]),
            "created_at": CREATED_AT,
            "filename": f"{file_id}.jsonl",
            "purpose": purpose,
            "status": "processed",
        }

    def _answer(
        self, url: str, body: dict[str, Any]
    ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
        """What the endpoint a batched request names would say to it: a refusal, an answer."""
        if url == "/v1/responses":
            return responses_refusal(body), response_object(body, self.reply)
        answer = chat_completion(body["model"], self.reply, completion_tokens=ANSWER_TOKENS)
        return chat_refusal(body), answer

    def _create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        """Runs the batch at once; the first poll finds it done."""
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines()]
        batch_id = f"batch_{len(self.batches) + 1}"
        batch: dict[str, Any] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body["endpoint"],
            "input_file_id": body["input_file_id"],
            "completion_window": body["completion_window"],
            "created_at": CREATED_AT,
            "status": "completed",
        }
        if self.fail_batches:
            batch.update(
                status="failed",
                failed_at=CREATED_AT,
                errors={"object": "list", "data": [{**BATCH_FAILURE, "line": None}]},
            )
            self.batches[batch_id] = batch
            return {**batch, "status": "validating", "errors": None}
        done: list[bytes] = []
        failed: list[bytes] = []
        for line in lines:
            self.batched.append(line["body"])
            refusal, answer = self._answer(line["url"], line["body"])
            status = 400 if refusal else 200
            result = {
                "id": f"batch_req_{len(self.batched)}",
                "custom_id": line["custom_id"],
                "response": {
                    "status_code": status,
                    "request_id": "req_standin",
                    "body": refusal or answer,
                },
                "error": None,
            }
            (failed if refusal else done).append(json.dumps(result).encode())
        for kind, results in (("output_file_id", done), ("error_file_id", failed)):
            if results:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = b"\n".join(results) + b"\n"
                batch[kind] = file_id
        batch.update(
            completed_at=CREATED_AT,
            request_counts={"total": len(lines), "completed": len(done), "failed": len(failed)},
        )
        self.batches[batch_id] = batch
        return {**batch, "status": "validating", "request_counts": None}


def batch_platform(fail_batches: bool = False) -> type[OpenAIBatchPlatform]:
    """A handler class of its own, so one test's files and batches are not another's."""
    return type(
        "OpenAIBatchPlatform",
        (OpenAIBatchPlatform,),
        {"requests": [], "files": {}, "batches": {}, "batched": [], "fail_batches": fail_batches},
    )
