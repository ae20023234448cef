"""The task's one-line errors reach the terminal whatever Inspect's display, on stderr and
whole.

Inspect's command line prints a PrerequisiteError (an `InputError`, a refused schema, a log
that could not be written, a run that judged nothing) as its message alone, through rich's
global console: on stdout, wrapped at the terminal's width (80 columns when piped), and not at
all under `--display none`, which makes that console quiet. The handler installed here prints
such an error on stderr, each line whole, and leaves every other case to Inspect's.
"""

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from rich.console import Console

from farejudge.core.inspect_internals import PrerequisiteError

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], None]


def inspect_command() -> list[str]:
    """The `inspect` command this process runs and its arguments (`["eval-retry", LOG]`); []
    where the process is not Inspect's command line (the Python API, `judge-matrix`)."""
    program = Path(sys.argv[0])
    inspect_cli = program.stem == "inspect" or program.parts[-2:] == ("inspect_ai", "__main__.py")
    return sys.argv[1:] if inspect_cli else []


def speaking(previous: ExceptHook) -> ExceptHook:
    """`previous`, except that a PrerequisiteError is printed on stderr, unwrapped."""

    def handler(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        if isinstance(error, PrerequisiteError):
            # The message is rich markup (escaped where it quotes a path): rendered, not wrapped.
            Console(stderr=True, soft_wrap=True, highlight=False).print(error.message)
            return
        previous(kind, error, traceback)

    return handler


@functools.cache
def install_error_lines() -> None:
    """Wrap the process's exception hook, once; called while the task is created, after
    Inspect's command line has installed its own."""
    sys.excepthook = speaking(sys.excepthook)
