"""The Inspect `ModelAPI` that runs a GGUF model in this process.

`GGUFModelAPI` turns `-M` model args into one `llama_cpp.Llama`, loaded on first use,
and runs every call on it one at a time in a worker thread, so the event loop stays free
and consecutive prompts reuse llama.cpp's KV cache for the prefix they share. Before
that, when it is created, it makes sure llama.cpp runs the model on this CPU (once per
model file, build and machine; see `cpu_check.py`). The request and response mapping,
grammar, native settings, performance counters and exit clean-up it uses live in the
sibling modules.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprobs,
    ModelAPI,
    ModelCall,
    ModelOutput,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.providers.gguf.cleanup import close_at_exit
from farejudge.providers.gguf.cpu_check import LLAMA_CPP_MISSING, ensure_llama_runs
from farejudge.providers.gguf.grammar import cap_response_format
from farejudge.providers.gguf.greedy_grammar import constrained_call
from farejudge.providers.gguf.llama_loader import load_llama
from farejudge.providers.gguf.logprobs import TokenRecorder
from farejudge.providers.gguf.mapping import (
    generate_kwargs,
    messages_to_dicts,
    output_from_response,
    overflow_output,
)
from farejudge.providers.gguf.models import KNOWN_MODELS, resolve_model_path
from farejudge.providers.gguf.perf import perf_counters, reset_perf
from farejudge.providers.gguf.threads import ThreadGovernor, set_threads, usable_cpus

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["DEFAULT_N_CTX", "GGUFModelAPI", "default_threads"]

# A rendered judge case is ~700-1300 prompt tokens plus a ~100-token verdict; 4096
# leaves headroom for longer cases without the KV cache costing much RAM on a 135M model.
DEFAULT_N_CTX = 4096

_T = TypeVar("_T")


def default_threads() -> tuple[int, int]:
    """(n_threads, n_threads_batch) when only one of them is given: half the logical CPUs
    for decoding, all of them for prompt processing, as llama-cpp-python itself defaults.
    With neither given, each call runs on the CPUs other processes leave free (`threads.py`).
    """
    cpus = os.cpu_count() or 1
    return max(1, cpus // 2), cpus


def _flag(name: str, value: bool | str) -> bool:
    """A yes/no `-M` value: a YAML boolean from the command line, or its text."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise PrerequisiteError(f"gguf: -M {name}={value}: give true or false")


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
        extra_bufts: bool | str = False,
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
        # Neither given: every call runs on the CPUs the other processes leave free, so
        # the load asks for all of them. Either given: the user's counts, as they are.
        self.governor: ThreadGovernor | None = None
        if n_threads is None and n_threads_batch is None:
            self.governor = ThreadGovernor(usable_cpus())
            self.n_threads = self.n_threads_batch = self.governor.cpus
        else:
            threads, threads_batch = default_threads()
            self.n_threads = int(n_threads) if n_threads is not None else threads
            self.n_threads_batch = (
                int(n_threads_batch) if n_threads_batch is not None else threads_batch
            )
        self.verbose = bool(verbose)
        # Off by default: on CPUs that report AMX, llama.cpp's AMX buffer type dies with
        # SIGILL on the first prompt of a few hundred tokens (see llama_loader.py).
        self.extra_bufts = _flag("extra_bufts", extra_bufts)
        # Anything else given with -M (n_batch, chat_format, n_gpu_layers, ...) goes
        # straight to the Llama constructor.
        self.llama_args: dict[str, Any] = dict(model_args)
        # Here and not at load time: Inspect creates the provider before the run starts,
        # where a PrerequisiteError ends it with its one line; raised from a sample, it
        # would be one sample's error.
        ensure_llama_runs(
            self.model_path, extra_bufts=self.extra_bufts, llama_args=self.llama_kwargs()
        )
        self._llm: Llama | None = None
        # The thread lock is what guards the Llama object (valid across event loops and
        # backends); the per-event-loop async lock makes waiters queue without each
        # occupying a worker thread, and keeps them cancellable while they wait.
        self._thread_lock = threading.Lock()
        self._async_lock: RunVar[anyio.Lock] = RunVar(f"gguf_lock_{id(self)}")

    # -- llama.cpp access ------------------------------------------------------------

    def llama_kwargs(self) -> dict[str, Any]:
        """The `llama_cpp.Llama` keyword arguments besides the model path and `verbose`."""
        return {
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "n_threads_batch": self.n_threads_batch,
            **self.llama_args,
        }

    def create_llama(self) -> Llama:
        """Build the `llama_cpp.Llama` this provider runs (called once, on first use).

        A subclass may override it to run another object with the same methods
        (`create_chat_completion`, `tokenize`, `close`), e.g. a stand-in in tests; the
        native check, when the provider is created, still runs on the model file.
        """
        try:
            return load_llama(
                self.model_path,
                extra_bufts=self.extra_bufts,
                verbose=self.verbose,
                **self.llama_kwargs(),
            )
        except ImportError as ex:
            raise PrerequisiteError(LLAMA_CPP_MISSING) from ex

    def _load(self) -> Llama:
        # Callers hold the thread lock, so two first calls cannot load the model twice.
        if self._llm is None:
            self._llm = self.create_llama()
            close_at_exit(self)
        return self._llm

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (it is loaded lazily, on first use)."""
        return self._llm is not None

    @property
    def llm(self) -> Llama:
        """The underlying `llama_cpp.Llama` (loaded on first access; blocking)."""
        with self._thread_lock:
            return self._load()

    def _lock(self) -> anyio.Lock:
        # An anyio.Lock belongs to one event loop, and benchmarks and notebooks call
        # asyncio.run() more than once on one provider: one lock per loop.
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
        kwargs = cap_response_format(
            {**self.sampling_defaults, **generate_kwargs(config)}, self.max_items
        )
        request: dict[str, Any] = {"model": self.model_name, "messages": messages, **kwargs}
        # Recorded while sampling, not asked of llama-cpp-python (see logprobs.py).
        recorder = TokenRecorder(config.top_logprobs or 0) if config.logprobs else None
        if recorder is not None:
            request.update(logprobs=True, top_logprobs=recorder.top)

        started: list[float] = []

        def call(llm: Llama) -> tuple[dict[str, Any], dict[str, float] | None, Logprobs | None]:
            # Timed from here, not from the await: waiting for the lock is queueing.
            started.append(time.monotonic())
            threads = self.governor.choose() if self.governor is not None else None
            if threads is not None and not set_threads(llm, threads):
                threads = None
            reset_perf(llm)
            call_kwargs, gate = constrained_call(llm, kwargs)
            # The recorder first: it reads the model's own logits, before the grammar's mask.
            processors = [p for p in (recorder, gate) if p is not None]
            if processors:
                call_kwargs["logits_processor"] = processors
            try:
                # No llm.reset() here on purpose: it would throw away the cached prefix.
                response = llm.create_chat_completion(
                    messages=messages,  # type: ignore[arg-type]
                    stream=False,
                    **call_kwargs,
                )
            finally:
                if gate is not None:
                    gate.close()
            logprobs = recorder.logprobs(llm) if recorder is not None else None
            # stream=False returns a single response dict, never the streaming iterator.
            perf = perf_counters(llm)
            if perf is not None and threads is not None:
                perf["n_threads"] = threads
            return cast("dict[str, Any]", response), perf, logprobs

        try:
            response, perf, logprobs = await self._run(call)
        except ValueError as ex:
            output = overflow_output(ex, model=self.model_name)
            if output is None:
                raise
            elapsed = time.monotonic() - started[0]
            output.time = elapsed
            return output, ModelCall.create(request, {"error": str(ex)}, time=elapsed)
        elapsed = time.monotonic() - started[0]
        output = output_from_response(
            response, model=self.model_name, n_ctx=self.n_ctx, elapsed=elapsed
        )
        if logprobs is not None:
            output.choices[0].logprobs = logprobs
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
