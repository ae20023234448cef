"""How many threads each llama.cpp call runs on: the CPUs that other processes leave free.

ggml's worker threads wait for each other at every step of a graph, hundreds of times a
token, and on a quiet machine spinning is the fast way to wait: 2 threads for decoding and
prompt processing with libgomp's spinning waits beat the old default (1 decode thread, 2
prompt threads, sleeping waits). Beside one CPU-bound process the same 2 spinning threads
collapse while 1 thread does not: a spinning thread that has lost its core holds up the
other at every barrier (docs/performance.md#threads-that-follow-the-neighbours). No one count
is right for both, so before each call the provider asks how much CPU the other processes
used since its last call, and runs on the CPUs they left free (all of them when the machine
is quiet, one at least). Which count ran does not change the reply: llama.cpp's CPU kernels
give each output value to one thread, so the completions and their logprobs are the same at
any count (tests/providers/test_gguf_threads.py pins it).

The reading is Linux's `/proc/stat` (the CPU time of every process) less this process's own
`os.times()` (its threads and the children it has waited for). Where `/proc/stat` is missing,
or counts other CPUs than this process may run on (a container pinned to some of the host's),
there is nothing to read, and every call runs on all the CPUs.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = [
    "CpuReading",
    "ThreadGovernor",
    "free_cpus",
    "read_cpu",
    "set_threads",
    "share",
    "usable_cpus",
]

# Shorter windows say more about the scheduler's last tick than about the neighbours.
MIN_WINDOW_S = 0.5

_PROC_STAT = Path("/proc/stat")
# Fields of /proc/stat's "cpu" line that are work (idle and iowait are not). Steal is
# another VM's work on our cores: for us, a neighbour like any other.
_BUSY_FIELDS = (0, 1, 2, 5, 6, 7)  # user nice system irq softirq steal


@dataclass(frozen=True)
class CpuReading:
    """The machine's and this process's CPU seconds at one moment."""

    wall_s: float
    all_cpu_s: float
    own_cpu_s: float


def read_cpu(stat: Path = _PROC_STAT, cpus: int | None = None) -> CpuReading | None:
    """Read the CPU time spent so far, or None where it cannot be told apart by process."""
    try:
        lines = stat.read_text(encoding="ascii").splitlines()
    except OSError:
        return None
    listed = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    if listed != (cpus if cpus is not None else usable_cpus()) or not lines[0].startswith("cpu "):
        return None
    ticks = lines[0].split()[1:]
    busy = sum(int(ticks[field]) for field in _BUSY_FIELDS if field < len(ticks))
    own = os.times()
    return CpuReading(
        wall_s=time.monotonic(),
        all_cpu_s=busy / os.sysconf("SC_CLK_TCK"),
        own_cpu_s=own.user + own.system + own.children_user + own.children_system,
    )


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def free_cpus(before: CpuReading, after: CpuReading, cpus: int) -> int:
    """The CPUs other processes left free between two readings, at least one.

    A neighbour counts from half a CPU: rounding the others' average use to whole CPUs.
    """
    wall = after.wall_s - before.wall_s
    others = ((after.all_cpu_s - before.all_cpu_s) - (after.own_cpu_s - before.own_cpu_s)) / wall
    return max(1, min(cpus, cpus - int(others + 0.5)))


def share(free: int, contexts: int) -> int:
    """Each context's thread count when `free` CPUs are free for `contexts` side by side,
    one at least."""
    return max(1, free // contexts)


class ThreadGovernor:
    """Chooses each call's thread count from the other processes' CPU use since the last."""

    def __init__(self, cpus: int, read: Callable[[], CpuReading | None] | None = None) -> None:
        self.cpus = cpus
        self._read = read if read is not None else (lambda: read_cpu(cpus=cpus))
        self._last = self._read()
        self._chosen = cpus
        # Contexts side by side ask from their own worker threads.
        self._lock = threading.Lock()

    def choose(self) -> int:
        """The CPUs free for the next call (and any running beside it)."""
        with self._lock:
            if self._last is None:
                return self._chosen
            now = self._read()
            if now is None:
                return self._chosen
            if now.wall_s - self._last.wall_s >= MIN_WINDOW_S:
                self._chosen = free_cpus(self._last, now, self.cpus)
                self._last = now
            return self._chosen


def set_threads(llm: Llama, threads: int) -> bool:
    """Run `llm`'s next calls on `threads` threads, for decoding and prompt processing alike.

    Returns False, changing nothing, for an object that is not a `llama_cpp.Llama` (a
    stand-in that a subclass's `create_llama` supplies has no llama.cpp context).
    """
    # Another context's worker thread may be importing llama_cpp right now: a module
    # without `Llama` yet cannot have made `llm`.
    bindings = sys.modules.get("llama_cpp")
    if bindings is None or not isinstance(llm, getattr(bindings, "Llama", ())):
        return False
    bindings.llama_set_n_threads(llm.ctx, threads, threads)
    return True
