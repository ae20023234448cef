"""Token log probabilities of a llama.cpp completion, recorded as the tokens are sampled.

llama-cpp-python's own `logprobs=True` needs the model loaded with `logits_all=True`: that
keeps n_ctx x n_vocab float32 logits (805 MB for SmolLM2's 49,152 tokens at n_ctx 4096),
computes the output layer for every prompt token, and sorts the whole vocabulary in Python
at each generated token: on one shipped case it took twice the time and nearly three times
the memory (docs/performance.md#the-embedded-judge-on-2-cores). The same numbers are at hand
while sampling: a logits processor is
called with the logits of each step, so one step costs a log-softmax and a partial sort.

These are the model's raw probabilities, as llama-cpp-python's `logprobs` would be (it
reads the context's logits, not the sampler's): the processor runs first in the sampler
chain, before the repeat penalty, the JSON-schema grammar and the temperature. So at the
verdict's `true`/`false` the alternatives are what the model itself preferred, not what
the grammar let through.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from inspect_ai.model import Logprob, Logprobs, TopLogprob

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["TokenRecorder"]


class TokenRecorder:
    """A llama-cpp-python logits processor that records each step's top alternatives.

    A step's own token is known only at the next step (the last of the context), so the
    last sampled token, the end of generation, has no entry.
    """

    def __init__(self, top: int) -> None:
        self.top = top
        self._previous: npt.NDArray[np.float64] | None = None
        self._steps: list[tuple[int, float, list[tuple[int, float]]]] = []
        """(token, its logprob, the top alternatives as (token, logprob)) a step."""
        self._tops: list[tuple[int, float]] = []

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        logits = scores.astype(np.float64)
        peak = logits.max()
        logprobs = logits - (peak + np.log(np.exp(logits - peak).sum()))
        if self._previous is not None:
            # The token sampled at the previous step is now the last of the context.
            chosen = int(input_ids[-1])
            self._steps.append((chosen, float(self._previous[chosen]), self._tops))
        k = min(self.top, logprobs.size)
        if k > 0:
            best = np.argpartition(logprobs, -k)[-k:]
            best = best[np.argsort(-logprobs[best])]
            self._tops = [(int(t), float(logprobs[t])) for t in best]
        self._previous = logprobs
        return scores

    def logprobs(self, llm: Llama) -> Logprobs:
        """The recorded steps as Inspect's logprobs, each token as the model spells it."""
        generated = [token for token, _, _ in self._steps]

        def spelt(token: int, at: int) -> dict[str, Any]:
            # In the context of the tokens before it, as llama-cpp-python detokenizes.
            raw = llm.detokenize([token], prev_tokens=generated[:at])
            return {"token": raw.decode("utf-8", errors="replace"), "bytes": list(raw)}

        return Logprobs(
            content=[
                Logprob(
                    **spelt(token, at),
                    logprob=logprob,
                    top_logprobs=[TopLogprob(**spelt(t, at), logprob=lp) for t, lp in tops],
                )
                for at, (token, logprob, tops) in enumerate(self._steps)
            ]
        )
