"""In-process Inspect AI model provider for local GGUF models (llama.cpp).

Usage::

    inspect eval ... --model gguf/smollm2-135m
    inspect eval ... --model gguf/any-label -M model_path=/models/x.gguf -M n_ctx=8192

Model args (-M): model_path, n_ctx (default 4096), n_parallel (contexts running calls side
by side: for the packaged model one per CPU up to four, else one), n_threads (decode
threads) and n_threads_batch (prompt-processing threads), by default each context's share
of the CPUs other processes leave free, chosen per call (`threads.py`), max_items
(cap on every array of a response schema), extra_bufts (llama.cpp's extra buffer types,
default false: their AMX kernel dies with SIGILL on some CPUs; see `llama_loader.py`), verbose;
any other -M key is passed to `llama_cpp.Llama` unchanged (n_batch, chat_format, ...).

Creating the provider checks, once per model file, llama.cpp build and machine, that
llama.cpp runs the model on this CPU (`cpu_check.py`); a build that cannot stops the
run with one line. `python -m farejudge.providers.gguf.server` is llama-cpp-python's
server with the same settings and check.

This package registers the `gguf` provider with Inspect and exports it, its
`GGUFModelAPI`, and the pure request, response and grammar helpers that can be checked
without a model. `llama_cpp` is imported only when the first model is loaded (the check
finds its files without importing it, and runs it in a child process):
`evals/_registry.py` imports this package for every Inspect run (including runs that
never touch a local model), so importing it must stay cheap and must not fail when
llama-cpp-python is absent.
"""

from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi

from farejudge.providers.gguf.api import GGUFModelAPI
from farejudge.providers.gguf.grammar import cap_arrays, llama_call_kwargs, strict_json_strings
from farejudge.providers.gguf.mapping import (
    generate_kwargs,
    messages_to_dicts,
    output_from_response,
)
from farejudge.providers.gguf.models import resolve_model_path

__all__ = [
    "GGUFModelAPI",
    "cap_arrays",
    "generate_kwargs",
    "gguf",
    "llama_call_kwargs",
    "messages_to_dicts",
    "output_from_response",
    "resolve_model_path",
    "strict_json_strings",
]


@modelapi(name="gguf")
def gguf() -> type[ModelAPI]:
    return GGUFModelAPI
