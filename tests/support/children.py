"""Processes a test starts, always stopped: a signal, a bounded wait, then a kill that says
what hung.

A shell starts a background job with SIGINT ignored and every child inherits that, so a test
run under one (`bash .ci/run &`, cron, a supervisor) starts its servers so. `as_background_job`
starts a child that way on purpose, whatever started the suite: a server that stops only
when Ctrl-C happens to reach it fails here, not on someone's CI.

A child's output goes to files, never to pipes a test may stop reading: a child blocked on a
full pipe hangs as surely as one that ignores its signal.
"""

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def as_background_job() -> None:
    """A child's start as a background job of a non-interactive shell: SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Hung(AssertionError):
    """A child that outlived its stop signal and the wait it was given (it has been killed)."""


@dataclass(frozen=True)
class Child:
    name: str
    process: "subprocess.Popen[bytes]"
    out: Path
    err: Path

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    def stdout(self) -> str:
        return self.out.read_text(encoding="utf-8", errors="replace")

    def stderr(self) -> str:
        return self.err.read_text(encoding="utf-8", errors="replace")

    def wait_for_line(self, pattern: str, seconds: float = 60) -> "re.Match[str]":
        """The first line of its stdout that `pattern` matches, once it has printed one."""
        deadline = time.monotonic() + seconds
        while True:
            for line in self.stdout().splitlines():
                if found := re.search(pattern, line):
                    return found
            if self.process.poll() is not None:
                raise AssertionError(
                    f"{self.name} exited with {self.process.returncode} before printing "
                    f"{pattern!r}:\n{self.stderr()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise Hung(f"{self.name} printed no {pattern!r} in {seconds:g} s:\n{self.stderr()}")
            time.sleep(0.05)

    def stop(self, sig: signal.Signals = signal.SIGINT, seconds: float = 10) -> int:
        """Send `sig` and wait up to `seconds`: its exit code (`stop_process`)."""
        return stop_process(self.process, self.name, sig, seconds, said=self.stderr)

    def kill(self) -> None:
        """SIGKILL, and wait for it: a no-op once it has exited."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()


def stop_process(
    process: "subprocess.Popen[bytes]",
    name: str,
    sig: signal.Signals,
    seconds: float,
    *,
    group: bool = False,
    said: Callable[[], str] = lambda: "",
) -> int:
    """Send `sig` (to its process group, with `group`) and wait up to `seconds`: its exit
    code. One still running then is killed, and the test fails naming it, the signal it did
    not heed, and what it `said`."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, sig)
            else:
                process.send_signal(sig)
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        process.wait()
        raise Hung(
            f"{name} (pid {process.pid}) still running {seconds:g} s after {sig.name}; "
            f"killed. It said:\n{said()}"
        ) from None


def start(
    name: str,
    argv: Sequence[str],
    logs: Path,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Child:
    """`argv` started as a background job would be (SIGINT ignored), its stdout and stderr in
    `logs/NAME.out` and `logs/NAME.err`."""
    logs.mkdir(parents=True, exist_ok=True)
    out, err = logs / f"{name}.out", logs / f"{name}.err"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            preexec_fn=as_background_job,
        )
    return Child(name, process, out, err)


@contextmanager
def running(
    name: str,
    argv: Sequence[str],
    logs: Path,
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[Child]:
    """`start`, and killed after the block if the block has not stopped it."""
    child = start(name, argv, logs, cwd=cwd, env=env)
    try:
        yield child
    finally:
        child.kill()


def process_environment(pid: int) -> dict[str, str] | None:
    """A process's environment as it started, or None where it cannot be read (gone, or a
    kernel thread)."""
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None
    pairs = (entry.partition(b"=") for entry in raw.split(b"\0") if entry)
    return {k.decode(errors="replace"): v.decode(errors="replace") for k, _, v in pairs}


def command_line(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)


def marked_processes(name: str, value: str, but: Sequence[int] = ()) -> dict[int, str]:
    """Every running process whose environment holds `name=value`, but `but`: its command."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in but:
            continue
        environment = process_environment(int(entry.name))
        if environment is not None and environment.get(name) == value:
            found[int(entry.name)] = command_line(int(entry.name))
    return found


def leftovers(name: str, value: str, seconds: float) -> dict[int, str]:
    """`marked_processes` still running after up to `seconds` for them to end, but this
    process and its ancestors; zombies (exited, not yet reaped) do not count."""
    deadline = time.monotonic() + seconds
    mine = ancestors(os.getpid())
    while True:
        running_now = {
            pid: command
            for pid, command in marked_processes(name, value, but=mine).items()
            if not _zombie(pid)
        }
        if not running_now or time.monotonic() > deadline:
            return running_now
        time.sleep(0.2)


def ancestors(pid: int) -> list[int]:
    """`pid` and every process above it, up to the first one /proc no longer shows."""
    found = []
    while pid > 0:
        found.append(pid)
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            break
        (parent,) = re.findall(r"^PPid:\s*(\d+)$", status, re.M)
        pid = int(parent)
    return found


def _zombie(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status
