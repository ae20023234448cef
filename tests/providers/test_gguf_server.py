"""`python -m farejudge.providers.gguf.server` owns its stop signals: started as a background
job (SIGINT ignored), SIGINT or SIGTERM stop it within 5 s while a client polls it; it says
"stopped" and exits 0. A second signal exits at once."""

import http.client
import importlib.util
import json
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from farejudge.providers.gguf.models import KNOWN_MODELS, packaged_file
from farejudge.providers.gguf.server import STOP_GRACE
from tests.support.children import Child, running
from tests.support.local_server import free_port

pytestmark = [
    pytest.mark.model,
    pytest.mark.subprocess,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp.server") is None,
        reason="llama-cpp-python[server] is not installed",
    ),
]


@contextmanager
def gguf_server(logs: Path) -> Iterator[tuple[Child, str]]:
    """The server on the packaged SmolLM2 on a free loopback port, once it answers: it and its
    base URL."""
    model = packaged_file(KNOWN_MODELS["smollm2-135m"])
    assert model is not None
    port = free_port()
    argv = [sys.executable, "-m", "farejudge.providers.gguf.server", "--model", str(model)]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "512", "--n_threads", "1"]
    url = f"http://127.0.0.1:{port}/v1"
    with running("gguf-server", argv, logs) as server:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except (urllib.error.URLError, OSError):
                assert server.process.poll() is None, server.stderr()
                assert time.monotonic() < deadline, server.stderr()
                time.sleep(0.2)
        yield server, url


@contextmanager
def polling(url: str) -> Iterator[list[int]]:
    """A client asking for `url` every 20 ms until the block ends: the statuses it got."""
    statuses: list[int] = []
    done = threading.Event()

    def poll() -> None:
        while not done.is_set():
            try:
                with urllib.request.urlopen(url, timeout=2) as answer:
                    statuses.append(answer.status)
            except (urllib.error.URLError, OSError):
                pass  # stopped, as it should
            done.wait(0.02)

    thread = threading.Thread(target=poll)
    thread.start()
    try:
        yield statuses
    finally:
        done.set()
        thread.join()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_started_as_a_background_job_it_stops_on_a_signal_while_polled(
    tmp_path: Path, sig: signal.Signals
) -> None:
    with gguf_server(tmp_path) as (server, url), polling(f"{url}/models") as statuses:
        time.sleep(0.5)
        started = time.monotonic()
        code = server.stop(sig, seconds=5)
        took = time.monotonic() - started
    print(f"{sig.name} while polled ({len(statuses)} answers): exit {code} in {took:.2f} s")
    assert statuses and set(statuses) == {200}
    assert code == 0, server.stderr()
    assert server.stdout().splitlines()[-1] == "stopped"


GENERATION = json.dumps(
    {
        "messages": [{"role": "user", "content": "Count from one to five hundred."}],
        "max_tokens": 400,
        "stream": True,
        # No end of sequence: the generation runs to its 400 tokens (seconds on 2 cores).
        "logit_bias": {"2": -100, "0": -100},
    }
).encode()


@contextmanager
def generating(url: str) -> Iterator[threading.Thread]:
    """A long generation streaming for the block, once its first tokens came: the client."""
    started = threading.Event()

    def generate() -> None:
        request = urllib.request.Request(
            f"{url}/chat/completions", GENERATION, {"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                answer.readline()
                started.set()
                answer.read()
        except (urllib.error.URLError, OSError, http.client.HTTPException):
            pass  # cut off by the stop, as it should be

    client = threading.Thread(target=generate)
    client.start()
    assert started.wait(30), "the generation never started"
    try:
        yield client
    finally:
        client.join(60)


def test_a_generation_in_flight_delays_the_stop_by_the_grace_at_most(tmp_path: Path) -> None:
    with gguf_server(tmp_path) as (server, url), generating(url) as client:
        assert client.is_alive(), "the generation ended before the signal"
        started = time.monotonic()
        code = server.stop(signal.SIGTERM, seconds=5)
        took = time.monotonic() - started
    print(f"SIGTERM during a generation: exit {code} in {took:.2f} s")
    assert code == 0, server.stderr()
    assert took < STOP_GRACE + 2
    assert server.stdout().splitlines()[-1] == "stopped"


def test_a_second_signal_exits_at_once_during_a_generation(tmp_path: Path) -> None:
    """The first signal gives the generation in flight its grace; the second does not wait."""
    with gguf_server(tmp_path) as (server, url), generating(url) as client:
        assert client.is_alive(), "the generation ended before the signal"
        server.process.send_signal(signal.SIGTERM)
        time.sleep(0.2)
        started = time.monotonic()
        code = server.stop(signal.SIGINT, seconds=5)
        took = time.monotonic() - started
    print(f"the second signal during a generation: exit {code} in {took:.2f} s")
    assert code == -signal.SIGINT, server.stderr()  # ended by the signal itself
    assert took < 1.0
    assert "stopped" not in server.stdout()
