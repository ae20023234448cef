"""A benchmark's record: `--record` appends the run's printed report to benchmarks/results/.

docs/performance.md gives today's figure for each thing measured; each benchmark's record
(`benchmarks/results/<name>.md`) keeps every run before it, oldest first. A recorded run is
the report the script printed, under a heading with the date (UTC), the commit, the machine
(the CPU model and the flags that decide llama.cpp's and numpy's kernels), the load average
at the start, and the command line.

    add_record_option(parser)  # in main(), so --help shows it
    ...
    if __name__ == "__main__":
        with recording("main_job"):  # records when the command line says --record
            main()
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

RESULTS = Path(__file__).resolve().parent / "results"
FLAGS = ("avx2", "avx512f", "amx_tile")
"""The CPU flags a record names: the kernels llama.cpp and numpy take depend on them."""


def machine(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU model (with its family and model numbers, which tell a generation where a
    virtual machine's model name does not), the CPU count, and the flags of FLAGS it reports
    (`no amx_tile` where it does not)."""
    fields: dict[str, str] = {}
    if cpuinfo.is_file():
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    model = fields.get("model name") or platform.processor() or platform.machine()
    if "cpu family" in fields and "model" in fields:
        model += f" (family {fields['cpu family']}, model {fields['model']})"
    flags = set(fields.get("flags", "").split())
    shown = ", ".join(flag if flag in flags else f"no {flag}" for flag in FLAGS)
    return f"{model}, {os.cpu_count()} CPUs; {shown}"


def commit(root: Path = RESULTS.parent.parent) -> str:
    """The checkout's commit, marked when files differ from it."""
    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "not a git checkout"
    return f"{head} with uncommitted changes" if git("status", "--porcelain") else head


def entry(report: str, command: str, when: datetime, load: float) -> str:
    """One recorded run, as markdown."""
    return (
        f"\n## {when:%Y-%m-%d %H:%M} UTC, commit {commit()}\n\n"
        f"- machine: {machine()}\n"
        f"- load average at the start: {load:.2f}\n"
        f"- command: `{command}`\n\n"
        f"```text\n{report.rstrip()}\n```\n"
    )


def append(path: Path, text: str, title: str) -> None:
    """Add `text` at the end of the record, atomically: a reader sees the old file or the new."""
    old = path.read_text(encoding="utf-8") if path.exists() else f"# {title}\n"
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, suffix=".tmp", delete=False
    ) as out:
        out.write(old + text)
    os.replace(out.name, path)


class _Tee(io.TextIOBase):
    def __init__(self, *streams: TextIO) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def add_record_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--record",
        action="store_true",
        help="append this run's report, dated, with the machine and the command, to its record "
        "in benchmarks/results/",
    )


@contextlib.contextmanager
def recording(name: str, enabled: bool | None = None, results: Path = RESULTS) -> Iterator[None]:
    """Print as usual; when `enabled` (by default, when the command line says `--record`),
    append what was printed to `results/<name>.md` at the end, if the run got there (a run
    that raised or exited is not a figure)."""
    if enabled is None:
        enabled = "--record" in sys.argv[1:]
    if not enabled:
        yield
        return
    when, load = datetime.now(UTC), os.getloadavg()[0]
    command = shlex.join(["python", *sys.argv])
    printed = io.StringIO()
    with contextlib.redirect_stdout(_Tee(sys.stdout, printed)):
        yield
    path = results / f"{name}.md"
    append(path, entry(printed.getvalue(), command, when, load), f"{name}: every recorded run")
    print(f"recorded in {path}")
