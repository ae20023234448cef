"""One function over several logs, a log per worker process where that pays.

Reading a log's samples is JSON decoding, which holds the GIL: threads would take turns.
Forked processes share the parent's imports and read one log each, a core apiece.
"""

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from fsspec.core import url_to_fs
from fsspec.implementations.local import LocalFileSystem

Result = TypeVar("Result")


def _cores() -> int:
    # The cores this process may run on, not the machine's.
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _local(location: str) -> bool:
    return isinstance(url_to_fs(location)[0], LocalFileSystem)


def map_logs(
    function: Callable[[str, str], Result], logs: Sequence[tuple[str, str]]
) -> list[Result]:
    """`function(location, key)` of each log, in order. In forked workers when there are
    several logs, more than one core, fork is available and every log is a local file: a
    remote filesystem's client holds an event loop and sockets a fork must not share."""
    workers = min(len(logs), _cores())
    forkable = "fork" in multiprocessing.get_all_start_methods()
    if workers < 2 or not forkable or not all(_local(location) for location, _ in logs):
        return [function(location, key) for location, key in logs]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(function, *zip(*logs, strict=True)))
