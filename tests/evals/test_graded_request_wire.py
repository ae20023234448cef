"""The graded score through Inspect's own providers, each against a stand-in on loopback that
answers in that provider's documented logprobs shape (tests/support/standins/logprob_servers.py).
"""

import asyncio
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from farejudge.evals.graded_request import TOP_LOGPROBS
from farejudge.scorers.graded import p_ungrounded
from tests.support.graded_replies import (
    LLAMA,
    LLAMA_TOKENS,
    OPENAI,
    OPENAI_TOKENS,
    VLLM,
    VLLM_TOKENS,
    Tok,
    graded_values,
    share,
)
from tests.support.json_server import serving
from tests.support.paths import FIXTURES
from tests.support.standins.logprob_servers import REFUSAL, LogprobServer, MessagesServer, Token

CASES = str(FIXTURES / "cases.jsonl")


def wire(tokens: list[Tok]) -> list[Token]:
    return [(t.text, t.logprob, t.top or []) for t in tokens]


@pytest.fixture
def server() -> Iterator[str]:
    LogprobServer.requests = []
    LogprobServer.refuses = False
    with serving(LogprobServer) as url:
        yield url


def generated(model: str, base_url: str) -> ModelOutput:
    judge = get_model(
        model,
        base_url=base_url,
        api_key="none",
        config=GenerateConfig(max_retries=1),
        memoize=False,
    )
    config = GenerateConfig(logprobs=True, top_logprobs=TOP_LOGPROBS)
    return asyncio.run(judge.generate("Judge this answer.", config=config))


# (server, Inspect's model name, reply, its tokens, bytes given, the expected P(ungrounded)).
SERVERS = [
    (
        "OpenAI Chat Completions, JSON mode",
        "openai/gpt-4o-mini",
        OPENAI,
        OPENAI_TOKENS,
        True,
        share([-0.105, -7.9, -11.2], [-2.31]),
    ),
    (
        "vLLM",
        # A model no other test names: Inspect's vLLM provider keeps the first base URL it
        # was given for a model for the rest of the process, this test's closed stand-in's.
        "vllm/mistralai/Mistral-7B-Instruct-v0.3",
        VLLM,
        VLLM_TOKENS,
        True,
        share([-3.95], [-0.02, -9.1, -12.0]),
    ),
    (
        "llama-cpp-python's server, through openai-api/",
        "openai-api/local/smollm2",
        LLAMA,
        LLAMA_TOKENS,
        False,
        share([-1.946, -4.651], [-0.309, -2.369]),
    ),
]


@pytest.mark.subprocess
@pytest.mark.parametrize(
    ("name", "model", "reply", "tokens", "with_bytes", "expected"),
    SERVERS,
    ids=[row[0] for row in SERVERS],
)
def test_each_servers_logprobs_reach_the_reader(
    server: str,
    name: str,
    model: str,
    reply: str,
    tokens: list[Tok],
    with_bytes: bool,
    expected: float,
) -> None:
    LogprobServer.reply, LogprobServer.tokens = reply, wire(tokens)
    LogprobServer.with_bytes = with_bytes
    output = generated(model, server)
    (request,) = LogprobServer.requests
    assert (request["logprobs"], request["top_logprobs"]) == (True, TOP_LOGPROBS), name
    got = p_ungrounded(output)
    assert isinstance(got, float), (name, got)
    assert got == pytest.approx(expected)


def scored(log: EvalLog) -> list[tuple[float, str, str]]:
    assert log.status == "success", log.error
    return graded_values(log)


@pytest.mark.subprocess
def test_a_refusal_of_logprobs_is_judged_without_them_and_said(
    server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOCAL_API_KEY", "none")
    monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    LogprobServer.reply, LogprobServer.tokens = LLAMA, wire(LLAMA_TOKENS)
    LogprobServer.refuses = True
    (log,) = eval(
        "evals/judge_groundedness.py",
        task_args={"dataset": CASES, "graded": "logprobs"},
        model="openai-api/local/reasoner",
        model_base_url=server,
        limit=3,
        max_connections=1,
        log_dir=str(tmp_path),
        display="none",
    )
    for p, source, explanation in scored(log):
        assert math.isnan(p) and source == "none"
        assert "No graded score: the provider refused logprobs (HTTP 400: " in explanation
        assert REFUSAL in explanation
    # The verdicts are scored as ever.
    assert log.results is not None
    # The sample's metadata keeps why, for the viewer and a re-score.
    assert log.samples
    for sample in log.samples:
        (why,) = sample.metadata["graded_reading"].values()
        assert why.startswith("the provider refused logprobs (HTTP 400: ") and REFUSAL in why
    # One refused request; the model is not asked for logprobs again.
    asked = [bool(r.get("logprobs")) for r in LogprobServer.requests]
    assert asked.count(True) == 1 and len(asked) == 4


@pytest.mark.subprocess
def test_anthropic_gives_no_graded_score_never_a_half(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("anthropic", reason="the anthropic extra is not installed")
    MessagesServer.requests = []
    MessagesServer.reply = LLAMA
    with serving(MessagesServer) as url:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-dummy-standin")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", url.removesuffix("/v1"))
        monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
        (log,) = eval(
            "evals/judge_groundedness.py",
            task_args={"dataset": CASES, "graded": "logprobs"},
            model="anthropic/claude-sonnet-4-6",
            model_args={"streaming": False},
            # The SDK refuses an unstreamed request that may run past ten minutes.
            max_tokens=1024,
            limit=2,
            log_dir=str(tmp_path),
            display="none",
        )
    for p, source, explanation in scored(log):
        assert math.isnan(p) and source == "none"
        assert "No graded score: the provider returned no logprobs." in explanation
    assert not any("logprobs" in r for r in MessagesServer.requests)
    # What the reading saw when the judge replied (the output's logprobs are dropped after it).
    assert log.samples
    none = {"no_grade": "the provider returned no logprobs"}
    assert all(sample.metadata["graded_reading"] == none for sample in log.samples)
