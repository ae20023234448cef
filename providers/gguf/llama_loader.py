"""Load a GGUF model with the llama.cpp settings that run on every x86-64 CPU.

llama-cpp-python compiles llama.cpp for the CPU it is built on, and by default a model
places its weights in llama.cpp's "extra buffer types" where the CPU offers one: repacked
layouts, and AMX tiles on CPUs that report AMX. On machines whose CPU reports AMX and
AVX-512 (recent Xeons in cloud VMs), the AMX kernel dies with SIGILL (`tileloadd` in
`ggml_backend_amx_mul_mat`) on the first prompt of a few hundred tokens. With the extra
buffer types off, llama.cpp keeps the weights in plain CPU buffers and runs its ordinary
kernels, so `load_llama` turns them off unless asked otherwise.

Run as a script (`python -P llama_loader.py REQUEST`), this module is the child process of the
native check (`cpu_check.py`): it loads the model as the provider would and evaluates a
prompt of a few hundred tokens, so that a CPU fault kills the child and not the run. It imports
only the standard library and llama-cpp-python, because running it by path keeps the child
from importing Inspect with this package (2 s of the check's cost).
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["extra_buffer_types", "load_llama", "prefer_sleeping_waits"]

# llama.cpp's AMX matrix product runs a one-row batch on AVX-512 VNNI and only larger ones
# on AMX tiles, so a one-token prompt proves nothing. A batch of a few hundred tokens takes
# the multi-row paths that the judge's prompts (700-1300 tokens, in batches of up to 512)
# take; with the packaged model the whole check takes a second or two
# (docs/performance.md#the-embedded-judge-on-2-cores).
CHECK_PROMPT_TOKENS = 256
# A few decode steps too: generation runs single-token batches, another kernel path.
CHECK_NEW_TOKENS = 4

# Fare-policy prose of the judge's own kind, repeated up to CHECK_PROMPT_TOKENS tokens.
_CHECK_TEXT = (
    "Retrieved passages. [P1] Seniors aged 65 and over ride local buses and trains for half "
    "fare with a Reduced Fare card; the card costs $5 and is issued at the downtown customer "
    "service office with proof of age. [P2] A transfer is valid for 90 minutes from the first "
    "tap and covers one change between bus and rail in any direction. [P3] Day passes are "
    "sold on the app and at ticket machines; they are not sold on board. Rider question: can "
    "my grandmother use a transfer on the ferry? Assistant answer: Transfers cover buses and "
    "trains for 90 minutes; ferries are not mentioned in the passages, so ask the operator. "
)

_PATCH_LOCK = threading.Lock()


@contextmanager
def extra_buffer_types(enabled: bool) -> Iterator[None]:
    """Models loaded inside the block use llama.cpp's extra buffer types only if `enabled`.

    `Llama()` has no keyword for `llama_model_params.use_extra_bufts`: its constructor takes
    the struct from `llama_cpp.llama_model_default_params()` and sets only the fields it has
    keywords for. Inside the block that function (a public binding) returns the defaults
    with the field set. The lock keeps two loads in two threads from restoring each
    other's patch.
    """
    import llama_cpp.llama_cpp as bindings

    with _PATCH_LOCK:
        defaults = bindings.llama_model_default_params
        if not hasattr(bindings.llama_model_params, "use_extra_bufts"):
            if enabled:
                yield  # the library's default: nothing to turn on
                return
            raise RuntimeError(
                "this llama-cpp-python has no use_extra_bufts setting: upgrade it "
                "(pip install -U llama-cpp-python), or turn extra buffer types on "
                "(-M extra_bufts=true)"
            )

        def params() -> bindings.llama_model_params:
            chosen: bindings.llama_model_params = defaults()
            chosen.use_extra_bufts = enabled
            return chosen

        bindings.llama_model_default_params = params
        try:
            yield
        finally:
            bindings.llama_model_default_params = defaults


def prefer_sleeping_waits(environ: MutableMapping[str, str], n_threads: object) -> None:
    """Let ggml's idle worker threads sleep instead of spinning, when decoding uses one thread.

    llama-cpp-python's builds run ggml's threads on OpenMP (libgomp), whose threads spin for
    300,000 iterations at each of a graph's hundreds of barriers before they sleep. Two
    prompt-processing threads on 2 cores beside one other busy process then spin against
    each other, and process prompts about three times slower than with
    `OMP_WAIT_POLICY=passive` (which is no slower when nothing else runs). Multi-threaded
    decoding is another matter: one token's graph is so short that sleeping waits cut 2-thread
    decoding to a third (docs/performance.md#the-embedded-judge-on-2-cores), so the policy is
    set only where decoding runs on one thread (`-M n_threads=1`), and never over the user's
    own. With no thread count given the provider loads on all the CPUs and follows the
    neighbours call by call instead (`threads.py`), so the policy stays unset.
    libgomp reads it once, when llama_cpp's libraries load; it is set in this process's
    environment, so child processes inherit it.
    """
    if n_threads == 1:
        environ.setdefault("OMP_WAIT_POLICY", "passive")


def load_llama(
    model_path: str | os.PathLike[str], *, extra_bufts: bool, **llama_args: Any
) -> Llama:
    """`llama_cpp.Llama(model_path, **llama_args)`, extra buffer types on only if asked."""
    prefer_sleeping_waits(os.environ, llama_args.get("n_threads"))
    from llama_cpp import Llama

    with extra_buffer_types(extra_bufts):
        return Llama(model_path=str(model_path), **llama_args)


def _evaluate(request: dict[str, Any]) -> None:
    """Load the model as the provider would, and decode a prompt of the judge's size."""
    llm = load_llama(
        request["model_path"], extra_bufts=request["extra_bufts"], verbose=False, **request["llama"]
    )
    try:
        tokens = llm.tokenize(_CHECK_TEXT.encode("utf-8"), add_bos=True)
        size = min(CHECK_PROMPT_TOKENS, max(1, llm.n_ctx() - CHECK_NEW_TOKENS))
        prompt = (tokens * (size // len(tokens) + 1))[:size]
        llm.create_completion(prompt, max_tokens=CHECK_NEW_TOKENS, temperature=0.0)
    finally:
        llm.close()


def _main(argv: Sequence[str]) -> None:
    if sys.platform != "win32":
        import resource

        # The fault this child is here to catch must not leave a core file behind.
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    (request,) = argv
    _evaluate(json.loads(request))


if __name__ == "__main__":
    _main(sys.argv[1:])
