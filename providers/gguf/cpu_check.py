"""Make sure llama.cpp runs on this CPU before a model is loaded in the run's own process.

A llama.cpp build that uses an instruction the CPU cannot run (one compiled for another
machine, or AMX kernels a VM does not allow) kills its process with SIGILL: the user would
see `Illegal instruction`, a core dump and nothing else. So the first time a model file is
used with a given llama.cpp build on a given machine, `ensure_llama_runs` loads it in a
child process (`llama_loader.py` run as a script) with the provider's settings and evaluates a
prompt of a few hundred tokens there. A child killed by a signal becomes one line
(a `PrerequisiteError`, which Inspect prints without a traceback) naming the signal, the
likely cause and what to do; a child that fails with a Python error becomes that error's
line. A pass is remembered in a cache folder, so the check costs its seconds once per
model file, build, machine and setting.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.markup import escape

from farejudge.core.inspect_internals import PrerequisiteError

__all__ = [
    "CHECK_SECONDS",
    "LLAMA_CPP_MISSING",
    "cache_folder",
    "check_key",
    "child_command",
    "cpu_flags_digest",
    "crash_message",
    "ensure_llama_runs",
]

LLAMA_CPP_MISSING = "gguf: llama-cpp-python is not installed (pip install llama-cpp-python)"
# The packaged model passes in a second or two (docs/performance.md#the-embedded-judge-on-2-cores);
# a 70B model on a slow CPU may take minutes. Slower than this, the model could not judge
# anything anyway.
CHECK_SECONDS = 600.0
# The context size and thread counts pick no kernel: a run that changes only these reuses
# the pass instead of paying for another check.
_UNKEYED_ARGS = frozenset({"n_ctx", "n_threads", "n_threads_batch"})
_REBUILD = (
    'rebuild it for any x86-64 CPU: CMAKE_ARGS="-DGGML_NATIVE=OFF" '
    "pip install --force-reinstall --no-cache-dir llama-cpp-python"
)


def cache_folder() -> Path:
    """Where passed checks are remembered: `$XDG_CACHE_HOME/farejudge/gguf-checks`."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    # The XDG spec has relative values ignored.
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "farejudge" / "gguf-checks"


def child_command() -> list[str]:
    """The check's child: `llama_loader.py` run by path, this interpreter.

    `-P` keeps the script's folder off `sys.path`: its sibling modules (`api`, `server`,
    ...) would otherwise shadow any top-level module of those names.
    """
    return [sys.executable, "-P", str(Path(__file__).with_name("llama_loader.py"))]


def cpu_flags_digest() -> str:
    """A digest of the instruction-set flags the CPU reports (`/proc/cpuinfo` on Linux)."""
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        cpuinfo = ""
    flags = {
        flag
        for line in cpuinfo.splitlines()
        # x86 says "flags", ARM "Features".
        if line.startswith(("flags", "Features"))
        for flag in line.partition(":")[2].split()
    }
    described = " ".join(sorted(flags)) or f"{platform.machine()} {platform.processor()}"
    return hashlib.sha256(described.encode("utf-8")).hexdigest()[:16]


def _stamp(path: Path) -> list[str | int]:
    stat = path.stat()
    return [str(path), stat.st_size, stat.st_mtime_ns]


def _library() -> dict[str, Any]:
    """The llama.cpp build: llama-cpp-python's version and its shared libraries' stamps.

    Found without importing `llama_cpp`, which loads the libraries; the folder is the one
    llama-cpp-python loads them from (`LLAMA_CPP_LIB_PATH`, else its package's `lib/`).
    """
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        raise PrerequisiteError(LLAMA_CPP_MISSING)
    package = Path(next(iter(spec.submodule_search_locations)))
    folder = Path(os.environ.get("LLAMA_CPP_LIB_PATH") or package / "lib")
    files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return {"llama_cpp": version, "library": [_stamp(p) for p in files]}


def _portable(llama_args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments that can cross to the child as JSON.

    Objects handed over from Python (a chat handler, a draft model) cannot, and they pick
    no CPU kernel.
    """
    portable: dict[str, Any] = {}
    for name, value in llama_args.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        portable[name] = value
    return portable


def check_key(request: Mapping[str, Any]) -> dict[str, Any]:
    """What a pass holds for: the model file, the build, the CPU and the settings."""
    settings = {
        "extra_bufts": request["extra_bufts"],
        "llama": {k: v for k, v in request["llama"].items() if k not in _UNKEYED_ARGS},
    }
    key = {
        "model": _stamp(Path(request["model_path"])),
        **_library(),
        "cpu": cpu_flags_digest(),
        "settings": settings,
    }
    # As it reads back from the cache file (tuples become lists), so the two compare equal.
    loaded: dict[str, Any] = json.loads(json.dumps(key, sort_keys=True))
    return loaded


def crash_message(model: str, signum: int, *, extra_bufts: bool, turn_off: str) -> str:
    """One line: the signal, the likely cause, what to do."""
    try:
        name = signal.Signals(signum).name
    except ValueError:
        name = f"signal {signum}"
    died = f"gguf: llama.cpp died with {name} ({signal.strsignal(signum) or name})"
    died += f" in a check run on {model}"
    if signum == getattr(signal, "SIGKILL", None):
        return (
            f"{died}: the system killed it, most often for lack of memory; free some memory "
            "or use a smaller model"
        )
    if signum == signal.SIGILL:
        cause = (
            "the llama-cpp-python build uses a CPU instruction that this CPU or VM cannot run "
            "(AMX or AVX-512, for example)"
        )
    else:
        cause = "llama.cpp crashed in native code, most often a build that does not fit this CPU"
    remedy = f"run with {turn_off}, or {_REBUILD}" if extra_bufts else _REBUILD
    return f"{died}: {cause}; {remedy}"


def _refusal(line: str) -> PrerequisiteError:
    # The CLI prints the message through rich: a "[...]" in a file name is not markup.
    return PrerequisiteError(escape(line))


def _last_line(text: str) -> str:
    return next((line.strip() for line in reversed(text.splitlines()) if line.strip()), "")


def _passed(entry: Path, key: Mapping[str, Any]) -> bool:
    try:
        record = json.loads(entry.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("key") == key


def _remember(entry: Path, record: Mapping[str, Any]) -> None:
    """Write the pass atomically: a reader sees the old file, or the whole new one."""
    written: Path | None = None
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(
            "w", dir=entry.parent, prefix=f".{entry.name}.", delete=False, encoding="utf-8"
        ) as out:
            written = Path(out.name)
            json.dump(record, out, indent=1)
        os.replace(written, entry)
    except OSError:
        # A cache that cannot be written costs a check per run, not the run.
        if written is not None:
            written.unlink(missing_ok=True)


def ensure_llama_runs(
    model_path: Path,
    *,
    extra_bufts: bool,
    llama_args: Mapping[str, Any],
    turn_off: str = "-M extra_bufts=false",
    command: Sequence[str] | None = None,
) -> None:
    """Raise a one-line `PrerequisiteError` unless llama.cpp runs this model on this CPU.

    Only a pass is remembered: a failure may be the moment's (memory short), and checking
    again costs the run it stops a few seconds.

    Args:
        model_path: the GGUF file.
        extra_bufts: whether the model uses llama.cpp's extra buffer types.
        llama_args: the other `llama_cpp.Llama` keyword arguments the model is loaded with.
        turn_off: how the user turns the extra buffer types off, for the message.
        command: the child's command line (the request is appended as its last
            argument); default `child_command()`.
    """
    request = {
        "model_path": str(model_path),
        "extra_bufts": extra_bufts,
        # On one thread: the count picks no kernel, and a check beside a busy machine must
        # not spin two threads against it.
        "llama": {**_portable(llama_args), "n_threads": 1, "n_threads_batch": 1},
    }
    key = check_key(request)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode("utf-8")).hexdigest()
    entry = cache_folder() / f"{digest[:32]}.json"
    if _passed(entry, key):
        return
    started = time.monotonic()
    try:
        done = subprocess.run(
            [*(command or child_command()), json.dumps(request)],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=CHECK_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise _refusal(
            f"gguf: a check run of llama.cpp on {model_path.name} did not finish in "
            f"{CHECK_SECONDS:.0f} s"
        ) from None
    if done.returncode < 0:
        raise _refusal(
            crash_message(
                model_path.name, -done.returncode, extra_bufts=extra_bufts, turn_off=turn_off
            )
        )
    if done.returncode > 0:
        # A Python error's last line is its type and message.
        said = _last_line(done.stderr) or "no error message"
        raise _refusal(
            f"gguf: a check run of llama.cpp on {model_path.name} failed "
            f"(exit status {done.returncode}): {said}"
        )
    _remember(
        entry,
        {
            "key": key,
            "seconds": round(time.monotonic() - started, 3),
            "checked": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        },
    )
