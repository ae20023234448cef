"""The stop signals of the project's long-running commands: theirs, whatever they inherited.

A shell starts a background job (`judge-label … &`, cron, `nohup`, many supervisors and CI
runners) with SIGINT ignored, and every child inherits that; a Python process that starts so
installs no KeyboardInterrupt handler, and Ctrl-C or `kill -INT` never reach it. SIGTERM,
what supervisors and container runtimes send, kills a Python process outright, with no clean
stop. So a server of this project installs its own handlers for both as it starts:

- the first signal asks the server to stop (`stop`, which must not block: it runs in the
  main thread, which may be the one serving), and the server then finishes or drops what is
  in flight within a bounded time, says "stopped" and exits 0;
- a second signal ends the process at once, by that signal with its default disposition, as
  if no handler had been installed (a shell reports 128 + its number).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

__all__ = ["STOP_SIGNALS", "StopRequest", "stop_signals_owned"]

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


@dataclass
class StopRequest:
    """The stop signals a command has received, first one first."""

    program: str
    stop: Callable[[], None]
    received: list[signal.Signals] = field(default_factory=list)

    @property
    def requested(self) -> bool:
        return bool(self.received)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        sig = signal.Signals(signum)
        self.received.append(sig)
        if len(self.received) == 1:
            self.stop()
            return
        # os.write, not print: the main thread may be inside a print when the signal lands,
        # and a buffered stream refuses to be entered twice.
        os.write(2, f"{self.program}: {sig.name} again: exiting at once\n".encode())
        signal.signal(sig, signal.SIG_DFL)
        signal.raise_signal(sig)


@contextmanager
def stop_signals_owned(program: str, stop: Callable[[], None]) -> Iterator[StopRequest]:
    """SIGINT and SIGTERM handled by `stop` (first) and an immediate exit (second) inside the
    block, whatever the process inherited; the handlers it had are back after it."""
    request = StopRequest(program, stop)
    previous = {sig: signal.signal(sig, request.handle) for sig in STOP_SIGNALS}
    try:
        yield request
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
