"""The gguf/ provider's logprobs: recorded from each step's logits, mapped onto Inspect's.

A stand-in `Llama` drives the logits processor the provider installs the way llama-cpp-python
does (the logits of each step, the context so far), over a four-token vocabulary.
"""

import asyncio
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig

from farejudge.providers.gguf import GGUFModelAPI
from farejudge.scorers.graded import p_ungrounded

if TYPE_CHECKING:
    from llama_cpp import Llama

# The last is the end of generation, which has no text.
VOCAB = ['{"grounded":', " true", " false", "}", ""]
EOS = 4
# The logits of each step, and the token sampled from them (the grammar's pick, not always
# the model's first choice: step 1 prefers " false" yet " true" is sampled).
STEPS = [
    (np.array([3.0, 0.0, 0.0, 0.0, 0.0], dtype=np.single), 0),
    (np.array([0.0, 1.0, 2.0, 0.0, 0.0], dtype=np.single), 1),
    (np.array([0.0, 0.0, 0.0, 4.0, 1.0], dtype=np.single), 3),
    (np.array([0.0, 0.0, 0.0, 0.0, 5.0], dtype=np.single), EOS),
]
PROMPT = [7, 8, 9]


class SteppedLlama:
    """Samples STEPS' tokens, calling each logits processor as llama-cpp-python's sampler does."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        ids = list(PROMPT)
        for logits, token in STEPS:
            for processor in kwargs.get("logits_processor") or []:
                processor(np.array(ids, dtype=np.intc), logits.copy())
            ids.append(token)
        text = "".join(VOCAB[t] for _, t in STEPS)
        return {
            "choices": [{"message": {"content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 3, "total_tokens": 6},
        }

    def detokenize(self, tokens: list[int], prev_tokens: list[int] | None = None) -> bytes:
        return "".join(VOCAB[t] for t in tokens).encode()

    def close(self) -> None:
        pass


def provider(fake: SteppedLlama, gguf_file: Path) -> GGUFModelAPI:
    class Backed(GGUFModelAPI):
        def create_llama(self) -> "Llama":
            return cast("Llama", fake)

    return Backed("tiny", model_path=str(gguf_file))


def log_softmax(logits: np.ndarray) -> np.ndarray:
    shifted: np.ndarray = logits.astype(np.float64) - logits.max()
    result: np.ndarray = shifted - math.log(np.exp(shifted).sum())
    return result


def test_each_token_has_its_logprob_and_alternatives_from_its_step(gguf_file: Path) -> None:
    fake = SteppedLlama()
    config = GenerateConfig(logprobs=True, top_logprobs=2)
    output, call = asyncio.run(
        provider(fake, gguf_file).generate([ChatMessageUser(content="judge")], [], "none", config)
    )
    assert not isinstance(output, Exception)
    logprobs = output.choices[0].logprobs
    assert logprobs is not None
    # The end of generation is sampled last: no later step shows which token it was.
    assert [lp.token for lp in logprobs.content] == VOCAB[:2] + VOCAB[3:4]
    for lp, (logits, token) in zip(logprobs.content, STEPS, strict=False):
        expected = log_softmax(logits)
        assert lp.logprob == pytest.approx(expected[token])
        assert lp.bytes == list(VOCAB[token].encode())
        best = np.argsort(-expected)[:2]
        assert lp.top_logprobs is not None
        assert lp.top_logprobs[0].token == VOCAB[int(best[0])]
        assert [t.logprob for t in lp.top_logprobs] == pytest.approx(list(expected[best]))
    # The request in the log says logprobs were asked for.
    assert call.request["logprobs"] is True and call.request["top_logprobs"] == 2
    # The reader takes the step's own numbers: " false" at 2.0 against " true" at 1.0.
    got = p_ungrounded(output)
    assert got == pytest.approx(math.e / (math.e + 1.0))


def test_no_processor_unless_logprobs_are_asked_for(gguf_file: Path) -> None:
    fake = SteppedLlama()
    output, call = asyncio.run(
        provider(fake, gguf_file).generate(
            [ChatMessageUser(content="judge")], [], "none", GenerateConfig()
        )
    )
    assert not isinstance(output, Exception)
    assert output.choices[0].logprobs is None
    assert "logits_processor" not in fake.calls[0] and "logprobs" not in call.request
