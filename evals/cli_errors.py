"""The task's one-line errors reach the terminal whatever Inspect's display.

Inspect's command line prints a PrerequisiteError (an `InputError`, a refused schema, a log
that could not be written) as its message alone, through rich's global console, and
`--display none` makes that console quiet: the run exited 1 and said nothing. The handler
installed here prints such an error on stderr where the console is quiet, and leaves every
other case to Inspect's.
"""

import functools
import sys
from collections.abc import Callable
from types import TracebackType

import rich
from rich.console import Console

from farejudge.core.inspect_internals import PrerequisiteError

ExceptHook = Callable[[type[BaseException], BaseException, TracebackType | None], None]


def speaking(previous: ExceptHook) -> ExceptHook:
    """`previous`, except that a PrerequisiteError is printed on stderr where rich is quiet."""

    def handler(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        if isinstance(error, PrerequisiteError) and rich.get_console().quiet:
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
