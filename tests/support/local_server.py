"""The guides' commands for a local OpenAI-compatible server, run as a user would type them."""

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.support.children import stop_process
from tests.support.cli import REPO_ROOT, Run

GUIDE = REPO_ROOT / "docs" / "real-judges.md"
SECTION = "Running a real judge"
# The port the guide's commands use; a test swaps in a free one.
README_PORT = 8000
# Console scripts (inspect) and `python` resolve to this interpreter's: a version-manager shim
# first on PATH may pick another one.
BIN = str(Path(sys.executable).parent)


def readme_commands(section: str = SECTION, guide: Path = GUIDE) -> list[str]:
    """The command lines of the section's code blocks, backslash continuations joined."""
    text = guide.read_text(encoding="utf-8")
    found = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert found, f"{guide.name} has no section '## {section}'"
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", found.group(1), re.S | re.M)
    joined = "\n".join(blocks).replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip()]


def readme_command(containing: str, section: str = SECTION) -> str:
    """The one command line in the section that contains `containing`."""
    lines = [line for line in readme_commands(section) if containing in line]
    assert len(lines) == 1, f"'{section}': {len(lines)} commands contain {containing!r}"
    return lines[0]


def on_port(command: str, old: str, new: str) -> str:
    """The command with its one mention of the guide's port swapped for a free one."""
    assert command.count(old) == 1, f"expected {old!r} once in: {command}"
    return command.replace(old, new)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def with_bin(env: dict[str, str]) -> dict[str, str]:
    return {**env, "PATH": os.pathsep.join([BIN, env.get("PATH", "")])}


@dataclass(frozen=True)
class Server:
    url: str
    """Its OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1."""
    log: Path
    """Everything it printed."""


@contextmanager
def running_server(
    command: str, port: int, log: Path, extra: Sequence[str] = (), start_seconds: float = 120
) -> Iterator[Server]:
    """The shell command as a server in a session of its own, until the block exits.

    Ready once /v1/models answers. Stopped in every case, by its process group (the shell
    and the server it runs).
    """
    url = f"http://127.0.0.1:{port}/v1"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "-c", " ".join([command, *map(shlex.quote, extra)])],
            cwd=REPO_ROOT,
            env=with_bin(dict(os.environ)),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + start_seconds
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"server exited with {proc.returncode}:\n{tail(log)}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"server not up after {start_seconds} s:\n{tail(log)}"
                    ) from None
                time.sleep(0.25)
        yield Server(url, log)
    finally:
        stop(proc, log)


def stop(proc: "subprocess.Popen[bytes]", log: Path) -> None:
    """SIGTERM to the server's process group: it must be gone within 10 s, with exit 0."""
    code = stop_process(proc, "the server", signal.SIGTERM, 10, group=True, said=lambda: tail(log))
    assert code == 0, f"the server exited with {code} on SIGTERM:\n{tail(log)}"


def tail(log: Path, lines: int = 30) -> str:
    return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])


@dataclass(frozen=True)
class TimedRun:
    argv: list[str]
    run: Run
    seconds: float


def split_env(command: str) -> tuple[dict[str, str], list[str]]:
    """`NAME=value ... program args` as the shell reads it: the assignments and the argv."""
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        name, value = words.pop(0).split("=", 1)
        env[name] = value
    return env, words


def run_commands(
    commands: Sequence[tuple[str, Sequence[str]]], env: dict[str, str], timeout: float = 240
) -> list[TimedRun]:
    """Each (command line, appended args) from the repository root, all at once, each timed."""

    def one(command: str, extra: Sequence[str]) -> TimedRun:
        assigned, argv = split_env(command)
        argv = [*argv, *extra]
        started = time.monotonic()
        done = subprocess.run(
            argv,
            cwd=REPO_ROOT,
            env=with_bin({**os.environ, **env, **assigned}),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        seconds = time.monotonic() - started
        return TimedRun(argv, Run(done.returncode, done.stdout, done.stderr), seconds)

    with ThreadPoolExecutor(max_workers=len(commands)) as pool:
        return list(pool.map(lambda c: one(*c), commands))
