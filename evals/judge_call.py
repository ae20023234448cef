"""Call the judge: with or without the verdict schema.

What the judge says, or fails to say, is its behaviour and is scored. A provider that could
not be reached, or refused the request, is not: the sample errors (Inspect lists it with its
cause and `inspect eval-retry` judges it again) instead of counting against the judge.
"""

import os
import re
import threading
from typing import Any, Literal

import anyio
from inspect_ai.model import (
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelRefusalError,
    ResponseSchema,
    get_model,
)
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


# JSON's unescaped string characters: no quote, no backslash, no control character.
_PLAIN_CHARS = r'[^"\\\x00-\x1f]'


def _plain_strings(schema: Any) -> Any:
    """The schema with each string's characters stated as a `pattern`.

    llama-cpp-python's server compiles a `json_object` schema into a grammar whose strings
    admit raw control characters, so a constrained reply can hold a literal newline inside
    `reasoning`, which no JSON parser accepts (seen through the server on the fixture cases).
    Its converter turns a `pattern` into the grammar character class by character class, so
    stating the characters closes that hole; the price is that a claim or the reasoning
    cannot contain a double quote or a backslash.
    """
    if isinstance(schema, list):
        return [_plain_strings(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    plain = {key: _plain_strings(value) for key, value in schema.items()}
    if plain.get("type") == "string" and "pattern" not in plain:
        bound = plain.get("maxLength")
        repeat = "*" if bound is None else f"{{0,{bound}}}"
        plain["pattern"] = f"^{_PLAIN_CHARS}{repeat}$"
    return plain


def json_object_schema() -> dict[str, Any]:
    """The verdict schema as `-T constrained=json_object` sends it."""
    schema: dict[str, Any] = _plain_strings(
        VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
    )
    return schema


def _schema_args(mode: SchemaMode) -> dict[str, Any]:
    if mode == "json_schema":
        return {"response_schema": VERDICT_SCHEMA}
    if mode == "json_object":
        schema = json_object_schema()
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
# The server's words kept in the rejection line: the line stays one line in a wide terminal.
_MAX_REJECTION_CHARS = 200
# Attempts at the first schema request to a model: enough to ride out one transient fault,
# few enough that a server that never takes the schema stops the run within seconds.
FIRST_SCHEMA_ATTEMPTS = 2


def _is_schema_rejection(err: BaseException) -> bool:
    _, text, status = _provider_text(err)
    return (status is None or status >= 400) and bool(_SCHEMA_WORDS.search(text))


def _rejection(model: str, mode: SchemaMode, err: BaseException) -> str:
    """One line: the model, the option whose schema it refused, what it said, what to run."""
    _, text, status = _provider_text(err)
    # Servers append their own traceback after a blank line (llama-cpp-python's does).
    said = " ".join(text.split("\n\n")[0].split())
    if len(said) > _MAX_REJECTION_CHARS:
        said = said[:_MAX_REJECTION_CHARS] + "..."
    if status is not None and str(status) not in said:
        said = f"HTTP {status}: {said}"
    option, other = ("true", "json_object") if mode == "json_schema" else ("json_object", "true")
    return redact_secrets(
        f"{model} rejected the verdict schema that -T constrained={option} sends ({said}); "
        f"run with -T constrained=false, or -T constrained={other} if the server takes the "
        "schema that way"
    )


# The probe's reply is thrown away: a few tokens show the request was taken.
_PROBE_TOKENS = 4
# A server that does not answer the probe in this time is left to the run's own first request.
PROBE_SECONDS = 60.0
# HTTP clients of OpenAI-compatible servers, where support for the schema varies: a second
# instance of one costs a connection. (Other providers may load weights or start a server.)
_PROBED_PROVIDERS = ("openai-api/", "openai/", "llama-cpp-python/", "ollama/")
_probes: dict[tuple[str, str | None, SchemaMode], tuple[bool, BaseException | None]] = {}
"""(model, base URL, mode) → (whether the probe got an answer, the error it got). One probe
a model and process: judge-matrix and eval-set create a task per prompt version."""


def _task_model() -> Model | None:
    """The model the task is being created for, or None where that is not known.

    Inspect creates the task once per `--model`, with that model active. Outside an eval
    (judge-matrix creates its tasks first) get_model() falls back to INSPECT_EVAL_MODEL, which
    need not be the model the task will run on: a model equal to that fallback is not probed.
    """
    try:
        model = get_model()
    except Exception:
        return None
    fallback = os.environ.get("INSPECT_EVAL_MODEL", "").split(",")[0].strip()
    return None if str(model) == fallback else model


def _probe(model: Model, mode: SchemaMode) -> tuple[bool, BaseException | None]:
    """One short schema request to a fresh instance of `model`: answered in time, and its error.

    Tasks are created in synchronous code inside Inspect's running event loop, so the request
    runs on a thread with an event loop and an API client of its own, leaving the model the
    samples run on untouched. It is a single attempt straight to the provider, without
    Inspect's retries.
    """
    outcome: list[BaseException | None] = []

    async def ask() -> None:
        fresh = get_model(
            str(model),
            config=model.config,
            base_url=model.api.base_url,
            memoize=False,
            **model.model_args,
        )
        async with fresh:
            output = await fresh.api.generate(
                [ChatMessageUser(content="Reply with a verdict.")],
                [],
                "none",
                GenerateConfig(max_tokens=_PROBE_TOKENS, **_schema_args(mode)),
            )
        # Some providers hand back a refused request instead of raising it.
        if isinstance(output, tuple) and isinstance(output[0], Exception):
            raise output[0]

    def run() -> None:
        try:
            anyio.run(ask)
        except Exception as err:
            outcome.append(err)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, name="verdict-schema-probe", daemon=True)
    thread.start()
    thread.join(PROBE_SECONDS)
    return (True, outcome[0]) if outcome else (False, None)


class _SchemaCheck:
    """Makes sure a model takes the verdict schema before the samples depend on it.

    A server that rejects the schema answers every request with an error that Inspect retries
    without end (HTTP 500 from llama-cpp-python's server). `probe` asks once while the task is
    being created: a refusal there ends the run before it starts, printed as one line with exit
    status 1 (Inspect reports a run stopped by sample errors with a traceback panel and exit
    status 0). Where the probe cannot tell, each model's first schema request is sent alone: a
    refusal then stops that sample and all the others at once, with the same line.
    """

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self._verdict: dict[str, str | None] = {}
        """model → None once a schema request succeeded, else why the server refused it."""

    def probe(self, constrained: Constrained) -> None:
        """Raises InputError when the task's model refuses the schema `constrained` asks for."""
        # By default only gguf/ gets the schema, enforced in-process: nothing to ask.
        if constrained is None or constrained is False:
            return
        model = _task_model()
        if model is None or not str(model).startswith(_PROBED_PROVIDERS):
            return
        name = str(model)
        mode = schema_mode(constrained, name)
        key = (name, model.api.base_url, mode)
        if key not in _probes:
            _probes[key] = _probe(model, mode)
        answered, err = _probes[key]
        if not answered or (err is not None and not _is_schema_rejection(err)):
            return  # no answer, or an ordinary fault: the run's first request will tell
        if err is not None:
            raise InputError([_rejection(name, mode, err)])
        self._verdict[name] = None

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
            refusal = _rejection(model, mode, err)
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
    schema_check.probe(constrained)

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
