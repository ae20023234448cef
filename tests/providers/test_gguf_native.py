"""The `gguf/` provider's native settings and its check that llama.cpp runs on this CPU.

Extra buffer types are off unless `-M extra_bufts=true`, and the setting reaches the model
params. Before a model is used, a child process loads it and decodes a prompt; a child that
dies by a signal stops the run with one line and leaves no core file, and a pass is
remembered per model file, build, machine and setting. The crashing children are a
stand-in `llama_cpp` package put first on the child's PYTHONPATH, which dies the way the
AMX kernel does: on a prompt of more than one token.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model

from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.providers.gguf import GGUFModelAPI, cpu_check, server
from farejudge.providers.gguf.cpu_check import (
    cache_folder,
    check_key,
    crash_message,
    ensure_llama_runs,
)
from farejudge.providers.gguf.llama_loader import extra_buffer_types, prefer_sleeping_waits
from tests.support.cli import INSPECT

LLAMA_CPP_MISSING = importlib.util.find_spec("llama_cpp") is None
needs_llama_cpp = pytest.mark.skipif(LLAMA_CPP_MISSING, reason="llama-cpp-python is not installed")
needs_signals = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and rlimits")
REBUILD = 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --force-reinstall --no-cache-dir'

# The fake's bindings: what native.extra_buffer_types patches.
FAKE_BINDINGS = """\
class llama_model_params:
    use_extra_bufts = True


def llama_model_default_params():
    return llama_model_params()
"""
# A Llama that loads, and runs `{fault}` on a prompt of more than one token.
FAKE_LLAMA = """\
import os
import signal


class Llama:
    def __init__(self, model_path, n_ctx=512, **kwargs):
        self._n_ctx = n_ctx

    def n_ctx(self):
        return self._n_ctx

    def tokenize(self, text, add_bos=True):
        return list(range(len(text.split())))

    def create_completion(self, prompt, **kwargs):
        if len(prompt) > 1:
            {fault}

    def close(self):
        pass
"""
DIES_BY_SIGILL = "os.kill(os.getpid(), signal.SIGILL)"


def fake_llama_cpp(root: Path, fault: str) -> str:
    """A stand-in `llama_cpp` package under `root`; the folder to put on PYTHONPATH."""
    package = root / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(FAKE_LLAMA.format(fault=fault), encoding="utf-8")
    (package / "llama_cpp.py").write_text(FAKE_BINDINGS, encoding="utf-8")
    return str(root)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    return cache_folder()


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


@pytest.fixture
def core_dumps_allowed() -> Iterator[bool]:
    """The soft core-file limit raised to the hard one, as on a machine that keeps cores.

    Yields whether a process killed by SIGILL would leave a core file in its working folder
    here (the kernel writes it there, not to a pipe, and the hard limit allows one).
    """
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    try:
        pattern = Path("/proc/sys/kernel/core_pattern").read_text(encoding="utf-8").strip()
    except OSError:
        pattern = "|"
    try:
        yield hard != 0 and not pattern.startswith("|") and "/" not in pattern
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def cores(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.name == "core" or p.name.startswith("core.")]


# --------------------------------------------------------------------------------------
# Extra buffer types: off by default, -M extra_bufts=true turns them on
# --------------------------------------------------------------------------------------


class RecordingLlama:
    """Stands in for `llama_cpp.Llama`: reads the model params as its constructor does."""

    def __init__(self, model_path: str, **kwargs: Any) -> None:
        import llama_cpp.llama_cpp as bindings

        self.model_params = bindings.llama_model_default_params()
        self.kwargs = kwargs

    def close(self) -> None:
        pass


@needs_llama_cpp
@pytest.mark.parametrize(
    ("model_args", "expected"),
    [({}, False), ({"extra_bufts": True}, True), ({"extra_bufts": "true"}, True)],
)
def test_extra_bufts_reach_the_model_params(
    model_args: dict[str, Any],
    expected: bool,
    model_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import llama_cpp

    checked: list[dict[str, Any]] = []
    monkeypatch.setattr(
        "farejudge.providers.gguf.api.ensure_llama_runs", lambda *a, **k: checked.append(k)
    )
    monkeypatch.setattr(llama_cpp, "Llama", RecordingLlama)
    api = get_model(
        "gguf/tiny", model_path=str(model_file), n_ctx=256, memoize=False, **model_args
    ).api
    assert isinstance(api, GGUFModelAPI)
    llm: Any = api.llm
    assert llm.model_params.use_extra_bufts is expected
    assert llm.kwargs["n_ctx"] == 256
    # The check ran first, with the same setting and the same Llama arguments.
    (check,) = checked
    assert check["extra_bufts"] is expected
    assert check["llama_args"] == {
        "n_ctx": 256,
        "n_threads": api.n_threads,
        "n_threads_batch": api.n_threads_batch,
    }
    # Outside the load, the library's own defaults are back.
    assert llama_cpp.llama_cpp.llama_model_default_params().use_extra_bufts is True


@needs_llama_cpp
def test_the_switch_holds_only_inside_its_block() -> None:
    import llama_cpp.llama_cpp as bindings

    for enabled in (False, True):
        with extra_buffer_types(enabled):
            assert bindings.llama_model_default_params().use_extra_bufts is enabled
    assert bindings.llama_model_default_params().use_extra_bufts is True


@pytest.mark.parametrize(
    ("environ", "n_threads", "policy"),
    [
        ({}, 1, "passive"),
        ({"OMP_WAIT_POLICY": "active"}, 1, "active"),  # the user's own wins
        ({}, 2, None),  # multi-threaded decoding keeps libgomp's spinning waits
        ({}, None, None),
    ],
)
def test_idle_threads_sleep_where_decoding_runs_on_one_thread(
    environ: dict[str, str], n_threads: int | None, policy: str | None
) -> None:
    prefer_sleeping_waits(environ, n_threads)
    assert environ.get("OMP_WAIT_POLICY") == policy


# libgomp prints its settings as it starts when OMP_DISPLAY_ENV=verbose: the policy works only
# if it is in the environment before llama_cpp's libraries load it.
LOAD_AND_SHOW = """\
import sys
from farejudge.providers.gguf.llama_loader import load_llama
try:
    load_llama(sys.argv[1], extra_bufts=False, n_threads=int(sys.argv[2]))
except ValueError:
    pass  # no such model file: the libraries are loaded by then
"""


@needs_llama_cpp
@pytest.mark.subprocess
@pytest.mark.parametrize(("n_threads", "spins"), [(1, "'0'"), (2, "'300000'")])
def test_libgomp_starts_with_the_policy(tmp_path: Path, n_threads: int, spins: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env["OMP_DISPLAY_ENV"] = "verbose"
    shown = subprocess.run(
        [sys.executable, "-c", LOAD_AND_SHOW, str(tmp_path / "none.gguf"), str(n_threads)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stderr
    if "GOMP_SPINCOUNT" not in shown:
        pytest.skip("this llama.cpp build does not run on libgomp")
    assert f"GOMP_SPINCOUNT = {spins}" in shown


def test_a_bad_extra_bufts_value_is_one_line(model_file: Path) -> None:
    with pytest.raises(PrerequisiteError) as info:
        GGUFModelAPI("tiny", model_path=str(model_file), extra_bufts="maybe")
    assert str(info.value) == "gguf: -M extra_bufts=maybe: give true or false"


# --------------------------------------------------------------------------------------
# What the check says, and what its pass is keyed by
# --------------------------------------------------------------------------------------


def test_a_crash_is_one_line_naming_signal_cause_and_remedy() -> None:
    line = crash_message(
        "m.gguf", signal.SIGILL, extra_bufts=False, turn_off="-M extra_bufts=false"
    )
    assert "\n" not in line
    assert line.startswith("gguf: llama.cpp died with SIGILL (Illegal instruction)")
    assert "a CPU instruction that this CPU or VM cannot run (AMX or AVX-512" in line
    assert REBUILD in line
    # Already off: turning them off is no remedy.
    assert "-M extra_bufts" not in line
    on = crash_message("m.gguf", signal.SIGILL, extra_bufts=True, turn_off="-M extra_bufts=false")
    assert "run with -M extra_bufts=false, or rebuild" in on
    other = crash_message("m.gguf", signal.SIGSEGV, extra_bufts=False, turn_off="")
    assert "SIGSEGV" in other and REBUILD in other


def test_the_cache_folder_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "farejudge" / "gguf-checks"
    # A relative value is ignored, as the XDG spec says.
    monkeypatch.setenv("XDG_CACHE_HOME", "relative")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache_folder() == tmp_path / ".cache" / "farejudge" / "gguf-checks"


def request(model: Path, extra_bufts: bool = False, **llama: Any) -> dict[str, Any]:
    return {"model_path": str(model), "extra_bufts": extra_bufts, "llama": llama}


@needs_llama_cpp
def test_the_key_is_the_model_build_cpu_and_setting(
    model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = check_key(request(model_file, n_ctx=4096, n_batch=512))
    assert key["model"] == [str(model_file), 4, model_file.stat().st_mtime_ns]
    assert key["llama_cpp"] == importlib.metadata.version("llama-cpp-python")
    assert any(Path(path).name.startswith("libllama") for path, _, _ in key["library"])
    # The context size and thread counts pick no kernel; n_batch and the switch may.
    assert check_key(request(model_file, n_ctx=256, n_batch=512)) == key
    assert check_key(request(model_file, n_ctx=4096, n_batch=64)) != key
    assert check_key(request(model_file, True, n_ctx=4096, n_batch=512)) != key
    os.utime(model_file, ns=(0, 0))
    assert check_key(request(model_file, n_ctx=4096, n_batch=512)) != key
    monkeypatch.setattr(cpu_check, "cpu_flags_digest", lambda: "another-cpu")
    assert check_key(request(model_file, n_ctx=4096, n_batch=512))["cpu"] == "another-cpu"


# --------------------------------------------------------------------------------------
# The check's child process
# --------------------------------------------------------------------------------------


@pytest.mark.subprocess
@needs_llama_cpp
def test_a_pass_is_remembered_and_a_changed_key_checks_again(
    model_file: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawns = tmp_path / "spawns.jsonl"
    # A child that passes and writes down the request it was given.
    record = f"import sys; open({str(spawns)!r}, 'a').write(sys.argv[-1] + '\\n')"
    command = [sys.executable, "-c", record]

    def check(extra_bufts: bool = False, n_ctx: int = 4096) -> int:
        ensure_llama_runs(
            model_file,
            extra_bufts=extra_bufts,
            llama_args={"n_ctx": n_ctx, "n_batch": 512},
            command=command,
        )
        return len(spawns.read_text(encoding="utf-8").splitlines())

    assert check() == 1
    first = json.loads(spawns.read_text(encoding="utf-8"))
    # The child runs on one thread whatever the run's counts: they pick no kernel.
    assert first == request(model_file, n_ctx=4096, n_batch=512, n_threads=1, n_threads_batch=1)
    (entry,) = cache.iterdir()  # one file, no temporary file left beside it
    assert json.loads(entry.read_text(encoding="utf-8"))["key"]["model"][0] == str(model_file)
    assert check() == 1, "a pass is remembered"
    assert check(n_ctx=256) == 1, "the context size picks no kernel"
    assert check(extra_bufts=True) == 2
    os.utime(model_file, ns=(0, 0))
    assert check() == 3
    monkeypatch.setattr(cpu_check, "cpu_flags_digest", lambda: "another-cpu")
    assert check() == 4
    assert check() == 4


@pytest.mark.subprocess
@needs_signals
@needs_llama_cpp
def test_a_child_killed_by_sigill_stops_with_one_line_and_no_core_file(
    model_file: Path,
    cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    core_dumps_allowed: bool,
) -> None:
    monkeypatch.setenv("PYTHONPATH", fake_llama_cpp(tmp_path / "fake", DIES_BY_SIGILL))
    workdir = tmp_path / "work"
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    with pytest.raises(PrerequisiteError) as info:
        ensure_llama_runs(model_file, extra_bufts=False, llama_args={"n_ctx": 4096})
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(
        "gguf: llama.cpp died with SIGILL (Illegal instruction) in a check run on tiny.gguf: "
    )
    assert REBUILD in line
    assert cores(workdir) == []
    assert not cache.exists() or not any(cache.iterdir()), "a failure is not remembered"
    if core_dumps_allowed:
        # Without the child's own limit, the same death leaves a core file right here.
        subprocess.run([sys.executable, "-c", DIES_BY_SIGILL_SCRIPT], cwd=workdir, check=False)
        assert cores(workdir) != []


DIES_BY_SIGILL_SCRIPT = f"import os, signal; {DIES_BY_SIGILL}"


@pytest.mark.subprocess
@needs_llama_cpp
def test_a_python_error_in_the_child_is_its_own_line(
    model_file: Path, cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fault = "raise ValueError('Failed to load model from file: tiny.gguf')"
    monkeypatch.setenv("PYTHONPATH", fake_llama_cpp(tmp_path / "fake", fault))
    with pytest.raises(PrerequisiteError) as info:
        ensure_llama_runs(model_file, extra_bufts=False, llama_args={})
    assert str(info.value) == (
        "gguf: a check run of llama.cpp on tiny.gguf failed (exit status 1): "
        "ValueError: Failed to load model from file: tiny.gguf"
    )


TASK = """\
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.solver import generate


@task
def one():
    return Task(dataset=[Sample(input="Is the fare $2?", target="yes")], solver=generate())
"""


@pytest.mark.subprocess
@needs_signals
@needs_llama_cpp
def test_inspect_eval_stops_with_one_line_and_no_core_file(
    tmp_path: Path, core_dumps_allowed: bool
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (workdir / "task.py").write_text(TASK, encoding="utf-8")
    env = {
        **os.environ,
        # The stand-in reaches the check's child; Inspect itself never imports llama_cpp
        # before the check.
        "PYTHONPATH": fake_llama_cpp(tmp_path / "fake", DIES_BY_SIGILL),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "INSPECT_LOG_DIR": str(tmp_path / "logs"),
        # rich hard-wraps at the terminal width (80 columns in a pipe).
        "COLUMNS": "400",
    }
    done = subprocess.run(
        [INSPECT, "eval", "task.py", "--model", "gguf/smollm2-135m"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    lines = [line for line in said.splitlines() if line.strip()]
    assert done.returncode != 0
    # Inspect may print its start-up banner (the hooks it loaded) before anything runs; what
    # the run itself says is the one last line.
    (line,) = [line for line in lines if "Illegal instruction" in line]
    assert line == lines[-1] and line.startswith("gguf: llama.cpp died with SIGILL")
    assert "Traceback" not in said and "Fatal Python error" not in said
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in line and REBUILD in line
    assert cores(workdir) == []


# --------------------------------------------------------------------------------------
# The packaged model, for real
# --------------------------------------------------------------------------------------


def _child_survives(model_path: Path, *, extra_bufts: bool) -> bool:
    """Whether the check's child, run here by hand, gets through its prompt on this CPU."""
    request = {"model_path": str(model_path), "extra_bufts": extra_bufts, "llama": {"n_ctx": 256}}
    done = subprocess.run(
        [*cpu_check.child_command(), json.dumps(request)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=cpu_check.CHECK_SECONDS,
    )
    # Anything but a clean exit or a signal is a broken test set-up, not a CPU's answer.
    assert done.returncode <= 0, done.stderr
    return done.returncode == 0


@pytest.mark.model
@pytest.mark.subprocess
@needs_llama_cpp
@pytest.mark.parametrize("cpu", ["this one", "an AMX stand-in"])
def test_the_packaged_model_passes_once_and_loads_with_the_setting(
    cpu: str, cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The default loads on every x86-64 CPU, AMX or not: that is the point of the default.
    api = GGUFModelAPI("smollm2-135m", n_ctx=256)
    (entry,) = cache.iterdir()
    record = json.loads(entry.read_text(encoding="utf-8"))
    assert record["key"]["settings"] == {"extra_bufts": False, "llama": {}}
    try:
        assert api.llm.model_params.use_extra_bufts is False
        # The pass is remembered: a second model with only another context size runs no check.
        checks: list[object] = []
        with monkeypatch.context() as patched:
            patched.setattr(subprocess, "run", lambda *a, **k: checks.append(a))
            GGUFModelAPI("smollm2-135m", n_ctx=1024).close()
        assert checks == [], "the pass is remembered"
    finally:
        api.close()
    if cpu == "an AMX stand-in":
        # Both outcomes below on any machine: the check's child (and only it) gets the
        # stand-in llama_cpp, which dies by SIGILL on a long prompt as the AMX kernel does.
        fake = fake_llama_cpp(tmp_path / "fake", DIES_BY_SIGILL)
        child = ["env", f"PYTHONPATH={fake}", *cpu_check.child_command()]
        monkeypatch.setattr(cpu_check, "child_command", lambda: child)
    # With the extra buffer types on, what holds depends on the CPU: where llama.cpp's AMX
    # kernel dies (CPUs reporting AMX and AVX-512), the run stops with the check's one line;
    # elsewhere the model loads with the setting on. The child run by hand says which.
    survives = _child_survives(api.model_path, extra_bufts=True)
    if survives:
        on = GGUFModelAPI("smollm2-135m", n_ctx=256, extra_bufts="true")
        try:
            assert on.llm.model_params.use_extra_bufts is True
        finally:
            on.close()
        assert len(list(cache.iterdir())) == 2
    else:
        with pytest.raises(PrerequisiteError) as refused:
            GGUFModelAPI("smollm2-135m", n_ctx=256, extra_bufts="true")
        (line,) = str(refused.value).splitlines()
        assert line.startswith("gguf: llama.cpp died with SIG"), line
        assert "-M extra_bufts=false" in line, line
        # Only a pass is remembered.
        assert len(list(cache.iterdir())) == 1


# --------------------------------------------------------------------------------------
# The local server with the same settings
# --------------------------------------------------------------------------------------


@needs_llama_cpp
@pytest.mark.parametrize(("flag", "expected"), [([], False), (["--extra_bufts", "true"], True)])
def test_the_server_runs_llama_cpp_server_with_the_setting(
    flag: list[str], expected: bool, model_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import llama_cpp.llama_cpp as bindings

    checked: list[dict[str, Any]] = []
    served: list[tuple[str, list[str], bool]] = []
    monkeypatch.setattr(server, "ensure_llama_runs", lambda *a, **k: checked.append(k))

    def serve(module: str, **kwargs: Any) -> None:
        use = bindings.llama_model_default_params().use_extra_bufts
        served.append((module, list(sys.argv[1:]), use))

    monkeypatch.setattr("runpy.run_module", serve)
    monkeypatch.setattr(sys, "argv", ["server"])
    server.main(["--port", "8001", *flag, "--model", str(model_file)])
    # The server's own options reach it unchanged, and ours do not.
    assert served == [
        ("llama_cpp.server", ["--model", str(model_file), "--port", "8001"], expected)
    ]
    assert [c["extra_bufts"] for c in checked] == [expected]
    assert checked[0]["turn_off"] == "--extra_bufts false"


def test_the_server_stops_with_the_check_s_line(
    model_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def fails(*args: Any, **kwargs: Any) -> None:
        raise PrerequisiteError("gguf: llama.cpp died with SIGILL")

    monkeypatch.setattr(server, "ensure_llama_runs", fails)
    assert server.main(["--model", str(model_file)]) == 2
    assert capsys.readouterr().err == "gguf: llama.cpp died with SIGILL\n"


def test_a_crash_in_the_server_exits_70_not_1(
    model_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """1 is an alert to whoever reads the codes; a bug in the server is no alert."""

    def crashes(module: str, **kwargs: Any) -> None:
        raise ValueError("a bug inside the server")

    monkeypatch.setattr(server, "ensure_llama_runs", lambda *a, **k: None)
    monkeypatch.setattr("runpy.run_module", crashes)
    monkeypatch.setattr(sys, "argv", ["server"])
    assert server.main(["--model", str(model_file)]) == 70
    last = capsys.readouterr().err.splitlines()[-1]
    assert "ValueError: a bug inside the server" in last
