"""Make sure the judge's server takes the verdict schema before the samples depend on it.

A server that rejects the schema answers every request with an error that Inspect retries
without end (HTTP 500 from llama-cpp-python's server). The check asks once while the task is
created, and failing that, sends each model's first schema request alone (a grammar provider
compiles the schema in this process: its requests go out at once). A schema that the model's
API cannot carry at all (`json_object` on OpenAI's Responses API) is refused unsent.
"""

import os
import re
import threading
from typing import Protocol, runtime_checkable

import anyio
from inspect_ai.model import ChatMessageUser, GenerateConfig, Model, get_model
from inspect_ai.solver import Generate, TaskState
from inspect_ai.tool import ToolInfo

from farejudge.core.errors import InputError
from farejudge.core.inspect_internals import active_generate_config
from farejudge.evals.provider_errors import (
    SchemaRejected,
    provider_text,
    redact_secrets,
)
from farejudge.evals.retry_policy import leave_retries_to_inspect
from farejudge.evals.verdict_schema import (
    GRAMMAR_PROVIDERS,
    Constrained,
    SchemaMode,
    instead,
    schema_args,
    schema_mode,
)

# What a server says when it does not take the schema request (llama-cpp-python's server:
# "Input should be 'text' or 'json_object'" at response_format.type; OpenAI's Responses API
# names its `text.format` parameter).
_SCHEMA_WORDS = re.compile(
    r"response_format|text\.format|json_schema|json_object|response schema", re.I
)
# The server's words kept in the rejection line: the line stays one line in a wide terminal.
_MAX_REJECTION_CHARS = 200
# Attempts at the first schema request to a model: enough to ride out one transient fault,
# few enough that a server that never takes the schema stops the run within seconds.
FIRST_SCHEMA_ATTEMPTS = 2


def _is_schema_rejection(err: BaseException) -> bool:
    _, text, status = provider_text(err)
    return (status is None or status >= 400) and bool(_SCHEMA_WORDS.search(text))


def _rejection(model: str, mode: SchemaMode, err: BaseException) -> str:
    """One line: the model, the option whose schema it refused, what it said, what to run."""
    _, text, status = provider_text(err)
    # Servers append their own traceback after a blank line (llama-cpp-python's does).
    said = " ".join(text.split("\n\n")[0].split())
    if len(said) > _MAX_REJECTION_CHARS:
        said = said[:_MAX_REJECTION_CHARS] + "..."
    if status is not None and str(status) not in said:
        said = f"HTTP {status}: {said}"
    option = "true" if mode == "json_schema" else "json_object"
    return redact_secrets(
        f"{model} rejected the verdict schema that -T constrained={option} sends ({said}); "
        f"{instead(mode, model)}"
    )


@runtime_checkable
class _RoutesRequests(Protocol):
    """Inspect's OpenAI provider, which sends some models' requests to the Responses API."""

    def uses_responses_api(self, tools: list[ToolInfo], config: GenerateConfig) -> bool: ...


def _unsendable(model: Model, mode: SchemaMode) -> str | None:
    """Why `model`'s API cannot carry the schema as `mode` sends it, as one line; else None.

    Inspect builds the Responses API's `text` field from `response_schema` alone and drops
    `extra_body` there, so a `json_object` format would silently not be sent. It is refused
    rather than sent some other way: OpenAI's JSON mode carries no schema anyway, and the
    Responses API does take the schema itself, strictly enforced.
    """
    api = model.api
    if mode != "json_object" or not isinstance(api, _RoutesRequests):
        return None
    if not api.uses_responses_api([], model.config):
        return None
    return (
        f"-T constrained=json_object: {model} goes to OpenAI's Responses API, where Inspect "
        "sends no json_object format (it drops extra_body there); run with -T constrained=true, "
        "the Responses API's way to ask for the verdict schema, or -T constrained=false"
    )


# The probe's reply is thrown away: a few tokens show the request was taken. OpenAI's
# Responses API refuses a `max_output_tokens` under 16; Chat Completions takes 16 too.
_PROBE_TOKENS = 16
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
        # One attempt, as said above: not the SDK's own retries under it either.
        leave_retries_to_inspect(fresh)
        async with fresh:
            output = await fresh.api.generate(
                [ChatMessageUser(content="Reply with a verdict.")],
                [],
                "none",
                GenerateConfig(max_tokens=_PROBE_TOKENS, **schema_args(mode, str(model))),
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


class SchemaCheck:
    """Makes sure a model takes the verdict schema before the samples depend on it.

    A server that rejects the schema answers every request with an error that Inspect retries
    without end (HTTP 500 from llama-cpp-python's server). `probe` asks once while the task is
    being created: a refusal there ends the run before it starts, printed as one line with exit
    status 1 (Inspect reports a run stopped by sample errors with a traceback panel and exit
    status 0). Where the probe cannot tell, each model's first schema request is sent alone: a
    refusal then stops that sample and all the others at once, with the same line. A schema the
    model's API cannot carry is refused the same two ways, without a request.
    """

    def __init__(self) -> None:
        self._lock = anyio.Lock()
        self._verdict: dict[str, str | None] = {}
        """model → None once a schema request succeeded, else why the server refused it."""
        self._unsendable: dict[str, str | None] = {}
        """model → why its API cannot carry the schema, or None where it can."""

    def probe(self, constrained: Constrained, task_model: Model | None = None) -> None:
        """Raises InputError when the task's model refuses the schema `constrained` asks for,
        or its API cannot carry it. `task_model` is the model the task itself names, where
        it names one (`Task(model=...)`, which Inspect runs over the eval's)."""
        # By default only gguf/ gets the schema, enforced in-process: nothing to ask.
        if constrained is None or constrained is False:
            return
        model = task_model or _task_model()
        if model is None:
            return
        name = str(model)
        mode = schema_mode(constrained, name)
        unsendable = _unsendable(model, mode)
        if unsendable is not None:
            raise InputError([unsendable])
        if not name.startswith(_PROBED_PROVIDERS):
            return
        # The probe goes around Inspect's cache, so a cached rerun would still send it: there
        # the run's first schema request, if the cache lacks it, does the checking instead.
        if active_generate_config().cache:
            return
        key = (name, model.api.base_url, mode)
        if key not in _probes:
            _probes[key] = _probe(model, mode)
        answered, err = _probes[key]
        if not answered or (err is not None and not _is_schema_rejection(err)):
            return  # no answer, or an ordinary fault: the run's first request will tell
        if err is not None:
            raise InputError([_rejection(name, mode, err)])
        self._verdict[name] = None

    def refuse_unsendable(self, model: str, mode: SchemaMode) -> None:
        """Raises SchemaRejected where the sample's model cannot be sent the schema as `mode`.

        The probe says so before the run where it knows the model; this is for the runs where
        it does not (judge-matrix, eval-set).
        """
        if model not in self._unsendable:
            # Within a sample, get_model() is the model the sample runs on.
            self._unsendable[model] = _unsendable(get_model(), mode)
        unsendable = self._unsendable[model]
        if unsendable is not None:
            raise SchemaRejected(unsendable)

    async def generate(self, state: TaskState, generate: Generate, mode: SchemaMode) -> TaskState:
        model = str(state.model)
        # A grammar provider compiles the schema in this process and retries nothing: there
        # is no server to refuse it, and a first request sent alone would leave its other
        # contexts idle for the length of one prompt.
        if model not in self._verdict and not model.startswith(GRAMMAR_PROVIDERS):
            async with self._lock:
                if model not in self._verdict:
                    return await self._first(state, generate, mode, model)
        refusal = self._verdict.get(model)
        if refusal is not None:
            raise SchemaRejected(refusal)
        return await generate(state, **schema_args(mode, model))

    async def _first(
        self, state: TaskState, generate: Generate, mode: SchemaMode, model: str
    ) -> TaskState:
        args = schema_args(mode, model)
        try:
            done = await generate(state, max_retries=FIRST_SCHEMA_ATTEMPTS - 1, **args)
        except Exception as err:
            if not _is_schema_rejection(err):
                raise  # an ordinary fault: the next sample makes the first request again
            refusal = _rejection(model, mode, err)
            self._verdict[model] = refusal
            raise SchemaRejected(refusal) from None
        self._verdict[model] = None
        return done
