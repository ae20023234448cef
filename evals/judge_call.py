"""Call the judge: with or without the verdict schema.

What the judge says, or fails to say, is its behaviour and is scored. A provider that could
not be reached, or refused the request, is not: the sample errors (Inspect lists it with its
cause and `inspect eval-retry` judges it again) instead of counting against the judge.
"""

import os
import re
from typing import Any, Literal

import anyio
from inspect_ai.model import ModelRefusalError, ResponseSchema
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema, LimitExceededError
from tenacity import RetryError

from evals.errors import InputError
from evals.inspect_internals import ModelGenerateError, TerminateSampleError

# The judge's reply format as the prompts state it. String bounds keep a small local model
# from running on inside one string until the token limit cuts the JSON off.
VERDICT_SCHEMA = ResponseSchema(
    name="verdict",
    description="A groundedness verdict on the assistant's answer.",
    json_schema=JSONSchema(
        type="object",
        properties={
            "grounded": JSONSchema(type="boolean"),
            "unsupported_claims": JSONSchema(
                type="array", items=JSONSchema(type="string", maxLength=300)
            ),
            "reasoning": JSONSchema(type="string", maxLength=400),
        },
        required=["grounded", "unsupported_claims", "reasoning"],
        additionalProperties=False,
    ),
    strict=True,
)

SchemaMode = Literal["off", "json_schema", "json_object"]
"""How the verdict schema is sent: not at all; as the provider's own structured-output
request (Inspect's `response_schema`, OpenAI's `json_schema`); or inside
`response_format: {"type": "json_object", "schema": ...}`, the form llama-cpp-python's
OpenAI-compatible server accepts."""

# Providers that enforce a response schema by constrained decoding, for which the schema is
# on unless the task says otherwise.
SCHEMA_BY_DEFAULT = ("gguf/",)


Constrained = bool | Literal["json_object"] | None
"""The task option: true, false, json_object, or None for the provider's default."""


def check_constrained(value: object) -> Constrained:
    """The `-T constrained=` value, or a one-line error naming the accepted ones."""
    if value is None or isinstance(value, bool) or value == "json_object":
        return value
    raise InputError([f"-T constrained={value!r}: give true, false or json_object"])


def schema_mode(constrained: Constrained, model: str) -> SchemaMode:
    """How the schema is sent to this model under the task option `constrained`."""
    if constrained is None:
        return "json_schema" if model.startswith(SCHEMA_BY_DEFAULT) else "off"
    if constrained == "json_object":
        return "json_object"
    return "json_schema" if constrained else "off"


def _schema_args(mode: SchemaMode) -> dict[str, Any]:
    if mode == "json_schema":
        return {"response_schema": VERDICT_SCHEMA}
    if mode == "json_object":
        schema = VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
        return {"extra_body": {"response_format": {"type": "json_object", "schema": schema}}}
    return {}


# Names of environment variables whose values must never reach a log: a provider or a local
# server may echo the credential it was sent inside its error text.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_MAX_ERROR_CHARS = 500


def redact_secrets(text: str) -> str:
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value) >= 8:
            text = text.replace(value, f"[{name} redacted]")
    return text


def _provider_text(err: BaseException) -> tuple[BaseException, str, int | None]:
    """The provider's own exception, its message, and the HTTP status where there is one."""
    if isinstance(err, RetryError):
        err = err.last_attempt.exception() or err
    # ModelGenerateError's own message carries the whole request, prompt included; the
    # provider's exception, its cause, names the fault.
    if isinstance(err, ModelGenerateError) and err.provider_message:
        return err.__cause__ or err, err.provider_message, err.status_code
    status = getattr(err, "status_code", None)
    return err, str(err) or repr(err), status if isinstance(status, int) else None


def describe_provider_error(err: BaseException) -> str:
    """One line naming a provider fault, short enough to read in the viewer's sample list."""
    attempts = ""
    if isinstance(err, RetryError):
        # Inspect's retry gives up by raising tenacity's wrapper; the cause is the last attempt.
        attempts = f" (gave up after {err.last_attempt.attempt_number} attempts)"
    cause, text, status = _provider_text(err)
    if status is not None and str(status) not in text:
        text = f"HTTP {status}: {text}"
    text = " ".join(text.split())
    if len(text) > _MAX_ERROR_CHARS:
        text = text[:_MAX_ERROR_CHARS] + "..."
    return redact_secrets(f"{type(cause).__name__}: {text}{attempts}")


class JudgeUnreachable(RuntimeError):
    """The judge gave no reply because its provider failed: an outage, not a verdict.

    Raised in place of the provider's exception so the sample error Inspect records carries
    one redacted line, not an error text that may quote a credential.
    """

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        # What Inspect shows as the sample's error, in the sample list and the log.
        self.message = f"judge unreachable: {cause}"


class SchemaRejected(JudgeUnreachable):
    """The server refused the verdict schema itself; no retry will change that."""


# What a server says when it does not take the schema request (llama-cpp-python's server:
# "Input should be 'text' or 'json_object'" at response_format.type).
_SCHEMA_WORDS = re.compile(r"response_format|json_schema|json_object|response schema", re.I)
# Attempts at the first schema request to a model: enough to ride out one transient fault,
# few enough that a server that never takes the schema stops the run within seconds.
FIRST_SCHEMA_ATTEMPTS = 2


def _is_schema_rejection(err: BaseException) -> bool:
    _, text, status = _provider_text(err)
    return (status is None or status >= 400) and bool(_SCHEMA_WORDS.search(text))


class _SchemaCheck:
    """Sends each model's first schema request alone, then lets every sample through.

    A server that rejects the schema answers every request with an error that Inspect retries
    without end (HTTP 500 from llama-cpp-python's server). Found on the first request, the
    rejection stops that sample and all the others at once, with one line saying what to do.
    """

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self._verdict: dict[str, str | None] = {}
        """model → None once a schema request succeeded, else why the server refused it."""

    async def generate(self, state: TaskState, generate: Generate, mode: SchemaMode) -> TaskState:
        model = str(state.model)
        if model not in self._verdict:
            async with self._lock:
                if model not in self._verdict:
                    return await self._first(state, generate, mode, model)
        refusal = self._verdict[model]
        if refusal is not None:
            raise SchemaRejected(refusal)
        return await generate(state, **_schema_args(mode))

    async def _first(
        self, state: TaskState, generate: Generate, mode: SchemaMode, model: str
    ) -> TaskState:
        try:
            done = await generate(
                state, max_retries=FIRST_SCHEMA_ATTEMPTS - 1, **_schema_args(mode)
            )
        except Exception as err:
            if not _is_schema_rejection(err):
                raise  # an ordinary fault: the next sample makes the first request again
            refusal = (
                f"{model} rejected the verdict schema sent as {mode} "
                f"({describe_provider_error(err)}); run with -T constrained=false, or "
                f"-T constrained={'json_object' if mode == 'json_schema' else 'true'} "
                "if the server takes the schema that way"
            )
            self._verdict[model] = refusal
            raise SchemaRejected(refusal) from None
        self._verdict[model] = None
        return done


@solver
def judge_generate(constrained: Constrained = None) -> Solver:
    """Call the judge; a provider fault that outlives Inspect's own retries errors the sample.

    `constrained` asks for the verdict schema: true sends it as the provider's structured-output
    request, `json_object` inside an OpenAI `json_object` response format, false not at all
    (None: only where the provider enforces it by constrained decoding). Constraining changes a
    judge's behaviour, so each sample's store records how the schema was sent.
    """
    schema_check = _SchemaCheck()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        mode = schema_mode(constrained, str(state.model))
        state.store.set("constrained_decoding", mode != "off")
        state.store.set("schema_mode", mode)
        try:
            if mode == "off":
                return await generate(state)
            return await schema_check.generate(state, generate, mode)
        # Inspect ends a sample by raising these through the solver; they are not the judge's.
        except (LimitExceededError, TerminateSampleError, JudgeUnreachable):
            raise
        except ModelRefusalError as err:
            # A refusal is the judge's own behaviour: scored as a judge failure.
            state.output = err.output
            return state
        except Exception as err:
            raise JudgeUnreachable(describe_provider_error(err)) from None

    return solve
