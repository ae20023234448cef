"""Judge replies with their tokens' logprobs, in the shapes providers return them.

The graded reader's table (tests/scorers/test_graded_parser.py) and the tests that run those
replies through the scorer, the task and Inspect's providers share these.
"""

import math
from dataclasses import dataclass

from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    Logprob,
    Logprobs,
    ModelOutput,
    TopLogprob,
)

Alternatives = list[tuple[str, float]] | None


@dataclass(frozen=True)
class Tok:
    text: str
    logprob: float = -0.01
    top: Alternatives = None
    raw: bytes | None = None
    """The token's bytes, where the provider gives them and they are not its text's."""


def output_of(
    reply: str,
    tokens: list[Tok] | None,
    *,
    bytes_given: bool = False,
    reasoning: str | None = None,
) -> ModelOutput:
    """The judge's output as Inspect hands it over: `reply` as its text, the tokens' logprobs."""
    logprobs = None
    if tokens is not None:
        content = []
        for t in tokens:
            raw = t.raw if t.raw is not None else t.text.encode()
            content.append(
                Logprob(
                    token=t.text,
                    logprob=t.logprob,
                    bytes=list(raw) if bytes_given else None,
                    top_logprobs=None
                    if t.top is None
                    else [
                        TopLogprob(
                            token=a,
                            logprob=lp,
                            bytes=list(a.encode()) if bytes_given else None,
                        )
                        for a, lp in t.top
                    ],
                )
            )
        logprobs = Logprobs(content=content)
    message = ChatMessageAssistant(
        content=reply
        if reasoning is None
        else [ContentReasoning(reasoning=reasoning), ContentText(text=reply)]
    )
    return ModelOutput(
        model="judge",
        choices=[ChatCompletionChoice(message=message, stop_reason="stop", logprobs=logprobs)],
    )


def split(text: str, *cuts: str) -> list[Tok]:
    """`text` as tokens cut before each of `cuts`, in order (each found after the last)."""
    tokens, at = [], 0
    for cut in cuts:
        nxt = text.index(cut, at + 1) if text.startswith(cut, at) else text.index(cut, at)
        if nxt > at:
            tokens.append(Tok(text[at:nxt]))
        at = nxt
    tokens.append(Tok(text[at:]))
    return tokens


def with_top(tokens: list[Tok], at: str, logprob: float, top: Alternatives) -> list[Tok]:
    """The tokens with the one whose text is `at` given its logprob and alternatives."""
    (index,) = [i for i, t in enumerate(tokens) if t.text == at]
    return [Tok(t.text, logprob, top, t.raw) if i == index else t for i, t in enumerate(tokens)]


def share(false: list[float], true: list[float]) -> float:
    """P(false) normalised over the two, from the logprobs on each side."""
    f = sum(math.exp(x) for x in false)
    t = sum(math.exp(x) for x in true)
    return f / (f + t)


# OpenAI chat, JSON mode, compact JSON: the o200k tokenizer keeps `":` apart from the value.
OPENAI = '{"grounded":false,"unsupported_claims":["$2 fare"],"reasoning":"P1 says $1.25."}'
OPENAI_TOKENS = with_top(
    split(OPENAI, "grounded", '":', "false", ',"', "uns", "upported", '_claims":["', "$", "2"),
    "false",
    -0.105,
    [("false", -0.105), ("true", -2.31), (" false", -7.9), ("fals", -11.2), ('"', -12.0)],
)

# vLLM serving Qwen, pretty-printed: the value's token carries its leading space, and vLLM
# gives each token's bytes.
VLLM = '{\n  "grounded": true,\n  "unsupported_claims": [],\n  "reasoning": "All in P2."\n}'
VLLM_TOKENS = with_top(
    split(VLLM, '  "', "ground", "ed", '":', " true", ",\n", '  "uns'),
    " true",
    -0.02,
    [(" true", -0.02), (" false", -3.95), ("true", -9.1), (" True", -10.4), (" tr", -12.0)],
)

# llama-cpp-python (its server, or the gguf/ provider): SmolLM2's tokens under the verdict
# grammar, numbers as seen on a shipped case; the chosen token is also among its alternatives.
LLAMA = '{ "grounded": true, "unsupported_claims": [], "reasoning": "P1 has it" }'
LLAMA_TOP = [
    (" true", -0.309),
    (" false", -1.946),
    ("true", -2.369),
    ("false", -4.651),
    (' "', -4.9),
]
LLAMA_TOKENS = with_top(
    split(LLAMA, ' "', "ground", "ed", '":', " true", ",", ' "uns'), " true", -0.309, LLAMA_TOP
)


def graded_values(log: EvalLog) -> list[tuple[float, str, str]]:
    assert log.samples
    rows = []
    for sample in log.samples:
        score = sample.scores["verdict_agreement"]  # type: ignore[index]
        assert isinstance(score.value, dict) and score.explanation is not None
        p, source = score.value["p_ungrounded"], score.value["graded_source"]
        assert isinstance(p, float) and isinstance(source, str)
        rows.append((p, source, score.explanation))
    return rows
