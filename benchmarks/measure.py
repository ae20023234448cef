"""A command's wall time and peak memory, with and without the worker processes it starts.

Shared by the benchmarks that time a command end to end (judge-compare, judge-audit): wall
time is the whole command, interpreter start-up and imports included; peak memory its own
maximum resident set (its rusage), and "with workers" the largest sum of its and its worker
processes' resident sets, sampled every 50 ms (pages a forked worker shares with its parent
count twice: an upper bound), and "proportional" the largest sum of their proportional set
sizes (Linux's Pss: a page shared by n processes counts 1/n in each), what they hold together,
sampled every 250 ms.
"""

import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Measured:
    wall: float
    """Seconds."""
    peak: float
    """The command's own peak resident set, MB."""
    with_workers: float
    """The largest sum of its and its workers' resident sets, MB."""
    proportional: float
    """The largest sum of its and its workers' proportional set sizes, MB."""
    code: int
    stderr: str


def _tree(pid: int, field: str, status: str) -> int:
    """`field` in kilobytes (from /proc/PID/`status`) summed over process `pid` and every
    process under it, now."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            text = Path(f"/proc/{current}/{status}").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:  # it ended between listing and reading
            continue
        total += next(
            (int(line.split()[1]) for line in text.splitlines() if line.startswith(field)),
            0,
        )
        pending.extend(int(child) for child in children)
    return total


def tree_rss(pid: int) -> int:
    """Resident kilobytes of process `pid` and every process under it, now (Linux /proc): an
    upper bound, as a page a forked worker shares with its parent counts in each."""
    return _tree(pid, "VmRSS:", "status")


def tree_pss(pid: int) -> int:
    """Proportional kilobytes of process `pid` and every process under it, now: each shared
    page divided among the processes that share it."""
    return _tree(pid, "Pss:", "smaps_rollup")


def run_measured(command: Sequence[str]) -> Measured:
    """Run `command` (its stdout dropped), measuring it; its stderr is printed when it exits
    with a status other than 0 or 1."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tree_peak = pss_peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal tree_peak, pss_peak
        ticks = 0
        while not done.wait(0.05):
            tree_peak = max(tree_peak, tree_rss(child.pid))
            # Every fifth tick: the kernel walks each process's page tables for it, which
            # would take the measured command's CPU at every tick.
            ticks += 1
            if ticks % 5 == 0:
                pss_peak = max(pss_peak, tree_pss(child.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert child.stderr is not None
    err = child.stderr.read().decode(errors="replace")
    # wait4 gives this child's own rusage: ru_maxrss is the largest single process of the
    # command and the workers it waited for, not their sum; the sampler gives the sum.
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        print(err, file=sys.stderr)
    # ru_maxrss is in kilobytes on Linux.
    return Measured(wall, usage.ru_maxrss / 1024, tree_peak / 1024, pss_peak / 1024, code, err)
