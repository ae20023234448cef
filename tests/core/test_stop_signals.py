"""A command's stop signals are its own, whatever it inherited: the first asks it to stop, a
second exits at once, and the handlers it had come back after."""

import os
import signal
import subprocess
import sys
import time

import pytest

from farejudge.core.stop_signals import STOP_SIGNALS, stop_signals_owned
from tests.support.children import as_background_job


@pytest.mark.parametrize("sig", STOP_SIGNALS, ids=lambda s: s.name)
def test_the_first_signal_asks_once_and_the_old_handlers_come_back(sig: signal.Signals) -> None:
    before = {one: signal.getsignal(one) for one in STOP_SIGNALS}
    asked: list[str] = []
    with stop_signals_owned("test", lambda: asked.append("stop")) as stopping:
        assert not stopping.requested
        os.kill(os.getpid(), sig)
        time.sleep(0.01)  # Python runs the handler between two bytecodes of the main thread
        assert stopping.received == [sig]
    assert asked == ["stop"]
    assert {one: signal.getsignal(one) for one in STOP_SIGNALS} == before


# Started with SIGINT ignored, as a background job: the handler is installed all the same.
SECOND_SIGNAL = """
import os, signal, sys, time
from farejudge.core.stop_signals import stop_signals_owned

assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
with stop_signals_owned("prog", lambda: print("stopping", flush=True)):
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
print("not reached")
"""


@pytest.mark.subprocess
def test_a_second_signal_ends_the_process_by_that_signal_at_once() -> None:
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", SECOND_SIGNAL],
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=as_background_job,
    )
    took = time.monotonic() - started
    assert done.returncode == -signal.SIGINT, done.stderr  # ended by the signal itself
    assert done.stdout == "stopping\n"
    assert done.stderr == "prog: SIGINT again: exiting at once\n"
    assert took < 5
