"""The Inspect `ModelAPI` that runs a GGUF model in this process.

`GGUFModelAPI` turns `-M` model args into `llama_cpp.Llama` contexts, each loaded on first
use, and runs each call on one of them in a worker thread, so the event loop stays free.
Each context runs one call at a time and keeps its KV cache between calls, and a free
context takes the waiting call whose beginning its cache holds (`scheduling.py`), so
consecutive prompts reuse the prefix they share. Before that, when it is created, it makes
sure llama.cpp runs the model on this CPU (once per model file, build and machine; see
`cpu_check.py`). The request and response mapping, grammar, native settings, performance
counters and exit clean-up it uses live in the sibling modules.

Why several contexts: a 135M model's step is too short for ggml's threads to share well, so
two contexts of one thread each, side by side, do more on 2 cores than one context of two
threads, with the same replies (docs/performance.md#contexts-side-by-side).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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
from farejudge.providers.gguf.scheduling import Slot, Waiting, assign, window
from farejudge.providers.gguf.threads import ThreadGovernor, set_threads, share, usable_cpus

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["DEFAULT_N_CTX", "GGUFModelAPI", "default_parallel", "default_threads"]

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


def default_parallel(max_parallel: int) -> int:
    """How many contexts run calls side by side when no thread count is given: one for
    each CPU this process may use, up to the model's `max_parallel`."""
    return min(usable_cpus(), max_parallel)


@dataclass
class _Context:
    """One of the provider's llama.cpp contexts, and what its KV cache holds."""

    index: int
    llm: Llama | None = None
    prompt: str = ""
    """The messages of the last call it ran, as text: the beginning its cache holds."""
    busy: bool = False
    loading: threading.Lock = field(default_factory=threading.Lock)


# Seconds a waiting call sleeps before it looks for a free context itself.
_LOOK_AGAIN_S = 1.0


class _Waiter:
    """A call waiting for a context, on the event loop it was made on."""

    def __init__(self, prompt: str | None) -> None:
        self.prompt = prompt
        self.passed = 0
        self.context: _Context | None = None
        self.replaced = ""
        """The beginning its context's cache held before it was given the context."""
        self.started = False
        self.event = anyio.Event()
        self._thread = threading.get_ident()

    def wake(self) -> None:
        # An anyio.Event is set from its own event loop's thread only; elsewhere the
        # waiter finds its context when it looks again.
        if threading.get_ident() == self._thread:
            self.event.set()


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

    `n_parallel` `Llama` instances per provider object, each loaded on first use. A
    llama.cpp context is not thread-safe, so each runs one call at a time; a free context
    takes the waiting call that shares the most with its last prompt (`scheduling.py`), so
    llama-cpp-python reuses that context's KV cache for the shared token prefix (the judge
    instructions at least), which is most of the prompt.
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
        n_parallel: int | str | None = None,
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
        counts_given = n_threads is not None or n_threads_batch is not None
        if n_parallel is not None:
            self.n_parallel = int(n_parallel)
        else:
            cap = packaged.max_parallel if packaged is not None else 1
            self.n_parallel = 1 if counts_given else default_parallel(cap)
        if self.n_parallel < 1:
            raise PrerequisiteError(f"gguf: -M n_parallel={n_parallel}: give 1 or more")
        # Neither given: every call runs on its context's share of the CPUs the other
        # processes leave free, so the load asks for all of them (and leaves ggml's waits
        # spinning: see llama_loader.py). Either given: the user's counts, as they are, for
        # each context.
        self.governor: ThreadGovernor | None = None
        if not counts_given:
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
        self._contexts = [_Context(index) for index in range(self.n_parallel)]
        # The condition guards which context is busy and the calls waiting for one (valid
        # across event loops and backends); the per-event-loop semaphore keeps all but a
        # window of calls out, and every waiting call waits without a worker thread,
        # cancellable.
        self._free = threading.Condition()
        self._waiting: list[_Waiter] = []
        self._at_once: RunVar[anyio.Semaphore] = RunVar(f"gguf_contexts_{id(self)}")
        self._closing_registered = False

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
        """Build one `llama_cpp.Llama` this provider runs (once per context, on its first use).

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

    def _load(self, context: _Context) -> Llama:
        # Its own lock, not the condition: loading takes a second, and calls keep being
        # queued and given the other contexts meanwhile.
        with context.loading:
            if context.llm is None:
                context.llm = self.create_llama()
                with self._free:
                    if not self._closing_registered:
                        close_at_exit(self)
                        self._closing_registered = True
            return context.llm

    @property
    def loaded(self) -> bool:
        """Whether a context has been loaded (each is loaded lazily, on first use)."""
        return any(context.llm is not None for context in self._contexts)

    @property
    def llm(self) -> Llama:
        """The first context's `llama_cpp.Llama` (loaded on first access; blocking)."""
        return self._load(self._contexts[0])

    def _dispatch(self) -> None:
        """Give free contexts to waiting calls (see `scheduling.py`). Holds the condition."""
        while True:
            slots = [
                Slot(c.index, c.prompt, free=not c.busy, loaded=c.llm is not None)
                for c in self._contexts
            ]
            waiting = [Waiting(w.prompt, w.passed) for w in self._waiting]
            pick = assign(slots, waiting)
            if pick is None:
                return
            index, position = pick
            for earlier in self._waiting[:position]:
                earlier.passed += 1
            waiter = self._waiting.pop(position)
            context = self._contexts[index]
            context.busy = True
            waiter.replaced = context.prompt
            if waiter.prompt is not None:
                context.prompt = waiter.prompt
            waiter.context = context
            waiter.wake()

    async def _context_for(self, waiter: _Waiter) -> _Context:
        """Wait until `waiter` is given a context."""
        with self._free:
            self._waiting.append(waiter)
            self._dispatch()
        while waiter.context is None:
            # A context freed by a call on another event loop cannot wake this one: look again.
            with anyio.move_on_after(_LOOK_AGAIN_S):
                await waiter.event.wait()
            if waiter.context is None:
                with self._free:
                    self._dispatch()
        return waiter.context

    def _done(self, waiter: _Waiter) -> None:
        """Free the context `waiter` was given, or take it out of the queue (cancelled)."""
        with self._free:
            if waiter.context is not None:
                waiter.context.busy = False
                if not waiter.started:
                    # Cancelled between being given the context and running on it.
                    waiter.context.prompt = waiter.replaced
            elif waiter in self._waiting:
                self._waiting.remove(waiter)
            self._free.notify_all()
            self._dispatch()

    def _semaphore(self) -> anyio.Semaphore:
        # An anyio.Semaphore belongs to one event loop, and benchmarks and notebooks call
        # asyncio.run() more than once on one provider: one per loop.
        try:
            return self._at_once.get()
        except LookupError:
            semaphore = anyio.Semaphore(window(self.n_parallel))
            self._at_once.set(semaphore)
            return semaphore

    async def _run(self, fn: Callable[[Llama, int], _T], prompt: str | None = None) -> _T:
        """Run `fn(llm, context index)` in a worker thread on the context `scheduling.py`
        gives it (`prompt` None: a call that leaves the cache as it is)."""
        # The semaphore holds back all but a window of calls, which wait here, cancellable,
        # without a worker thread each.
        async with self._semaphore():
            waiter = _Waiter(prompt)
            try:
                context = await self._context_for(waiter)

                def on_the_context() -> _T:
                    waiter.started = True
                    return fn(self._load(context), context.index)

                return await anyio.to_thread.run_sync(on_the_context)
            finally:
                self._done(waiter)

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

        def call(
            llm: Llama, context: int
        ) -> tuple[dict[str, Any], dict[str, float] | None, Logprobs | None]:
            # Timed from here, not from the await: waiting for a context is queueing.
            started.append(time.monotonic())
            threads = (
                share(self.governor.choose(), self.n_parallel)
                if self.governor is not None
                else None
            )
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
            if perf is not None:
                perf["context"] = context
                if threads is not None:
                    perf["n_threads"] = threads
            return cast("dict[str, Any]", response), perf, logprobs

        try:
            response, perf, logprobs = await self._run(
                call, prompt=json.dumps(messages, ensure_ascii=False, default=str)
            )
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
            lambda llm, _: list(llm.tokenize(text.encode("utf-8"), add_bos=False, special=True))
        )

    def max_connections(self) -> int:
        # Each context does one sequence at a time; the calls beyond them wait in the window
        # that `scheduling.py` chooses the next call from.
        return window(self.n_parallel)

    def connection_key(self) -> str:
        return str(self.model_path)

    def should_retry(self, ex: Exception) -> bool:
        # Local inference has no transient failures worth retrying.
        return False

    def close(self) -> None:
        with self._free:
            while any(context.busy for context in self._contexts):
                self._free.wait()
            loaded = [context.llm for context in self._contexts if context.llm is not None]
            for context in self._contexts:
                context.llm, context.prompt = None, ""
        for llm in loaded:
            llm.close()
