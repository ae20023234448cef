"""llama-cpp-python's OpenAI-compatible server, with the native settings of the `gguf/` provider.

    python -m farejudge.providers.gguf.server --port 8000 --model MODEL.gguf [--extra_bufts true]

`python -m llama_cpp.server` loads its model with llama.cpp's extra buffer types on, and on
CPUs that report AMX it dies with SIGILL on the first prompt of a few hundred tokens (see
`llama_loader.py`). This runs the same server, with the same options, with them off;
`--extra_bufts true` turns them back on. Before it starts, the `--model` file passes the
provider's native check (with llama.cpp's defaults for the other settings), so a build this
CPU cannot run stops it with one line instead of a crash at the first request.
"""

from __future__ import annotations

import argparse
import runpy
import sys
from collections.abc import Sequence

from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.providers.gguf.cpu_check import ensure_llama_runs
from farejudge.providers.gguf.llama_loader import extra_buffer_types
from farejudge.providers.gguf.models import resolve_model_path

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> None:
    # --help and every other option are the server's own.
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--extra_bufts", choices=("true", "false"), default="false")
    parser.add_argument("--model")
    ours, theirs = parser.parse_known_args(argv)
    extra_bufts = ours.extra_bufts == "true"
    if ours.model is not None:
        try:
            ensure_llama_runs(
                resolve_model_path("server", ours.model),
                extra_bufts=extra_bufts,
                llama_args={},
                turn_off="--extra_bufts false",
            )
        except PrerequisiteError as err:
            sys.exit(str(err))
        theirs = ["--model", ours.model, *theirs]
    sys.argv = [sys.argv[0], *theirs]
    with extra_buffer_types(extra_bufts):
        runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
