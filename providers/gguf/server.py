"""llama-cpp-python's OpenAI-compatible server, with the native settings of the `gguf/` provider.

    python -m farejudge.providers.gguf.server --port 8000 --model MODEL.gguf [--extra_bufts true]

`python -m llama_cpp.server` loads its model with llama.cpp's extra buffer types on, and on
CPUs that report AMX it dies with SIGILL on the first prompt of a few hundred tokens (see
`llama_loader.py`). This runs the same server, with the same options, with them off;
`--extra_bufts true` turns them back on. Before it starts, the `--model` file passes the
provider's native check (with llama.cpp's defaults for the other settings), so a build this
CPU cannot run stops it with one line instead of a crash at the first request.

It stops on SIGINT or SIGTERM, whatever its parent left them as (`core/stop_signals`): it
accepts no more, gives the requests in flight up to 2 seconds, says "stopped" and exits 0. A
second signal ends it at once, by that signal (a shell reports 128 + its number). A crash exits
70, as every command of the project does (`core/commands.py`).
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import unittest.mock
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import uvicorn

from farejudge.core.commands import Command
from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.core.stop_signals import stop_signals_owned
from farejudge.providers.gguf.cpu_check import ensure_llama_runs
from farejudge.providers.gguf.llama_loader import extra_buffer_types
from farejudge.providers.gguf.models import resolve_model_path

__all__ = ["main"]

PROGRAM = "farejudge.providers.gguf.server"
STOP_GRACE = 2
"""Seconds the requests in flight have to finish once a stop signal came; a generation still
running then is dropped (its tokens were never sent whole)."""
# uvicorn.run's exit status when the server never started (a port in use, say).
STARTUP_FAILURE = 3


class _Stopped(Exception):
    """A stop signal before the server serves: while the model loads, say."""


class _OwnSignalsServer(uvicorn.Server):
    """uvicorn's server without its own signal handlers: this command's are in force."""

    @contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


class _Serving:
    """What the first stop signal does: abandon the start, or stop the server once it runs."""

    def __init__(self) -> None:
        self.server: _OwnSignalsServer | None = None

    def stop(self) -> None:
        if self.server is None:
            raise _Stopped
        self.server.should_exit = True

    def run(self, app: Any, **options: Any) -> None:
        """`uvicorn.run` (which llama-cpp-python's server calls) for this command's signals."""
        config = uvicorn.Config(app, timeout_graceful_shutdown=STOP_GRACE, **options)
        self.server = _OwnSignalsServer(config)
        self.server.run()
        if not self.server.started:
            sys.exit(STARTUP_FAILURE)


def run(argv: Sequence[str] | None = None) -> int:
    # --help and every other option are the server's own.
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--extra_bufts", choices=("true", "false"), default="false")
    parser.add_argument("--model")
    ours, theirs = parser.parse_known_args(argv)
    extra_bufts = ours.extra_bufts == "true"
    serving = _Serving()
    with stop_signals_owned(PROGRAM, serving.stop) as stopping:
        try:
            if ours.model is not None:
                try:
                    ensure_llama_runs(
                        resolve_model_path("server", ours.model),
                        extra_bufts=extra_bufts,
                        llama_args={},
                        turn_off="--extra_bufts false",
                    )
                except PrerequisiteError as err:
                    print(err, file=sys.stderr)
                    return 2
                theirs = ["--model", ours.model, *theirs]
            sys.argv = [sys.argv[0], *theirs]
            with (
                extra_buffer_types(extra_bufts),
                unittest.mock.patch.object(uvicorn, "run", serving.run),
            ):
                runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
        except _Stopped:
            pass
    if stopping.requested:
        print("stopped", flush=True)
        sys.stderr.flush()
        # A generation still running in a worker thread would hold the interpreter's exit
        # until its last token: it was dropped, so the process ends now.
        os._exit(0)
    return 0


main = Command(
    f"python -m {PROGRAM}",
    {
        0: 'stopped by SIGINT or SIGTERM (it says "stopped")',
        2: "an option it cannot use (llama-cpp-python's server's own parser says which), or "
        "a --model this CPU's llama.cpp build cannot run: one line",
        STARTUP_FAILURE: "the server did not start: the port in use, say",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
