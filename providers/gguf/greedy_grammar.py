"""Greedy decoding under a grammar, the grammar checked only on the tokens that can win.

llama-cpp-python runs a response grammar as a sampler over the whole vocabulary at every
step: for SmolLM2's 49,152 tokens that takes about as long as the model's own forward pass
(docs/performance.md#the-embedded-judge-on-2-cores). At temperature 0 only the token that
wins matters, and which tokens can win is known before the grammar runs:

- llama-cpp-python's sampler chain at temperature 0 is: the logits processors, then the
  repetition penalties, then the grammar, then greedy selection (the highest logit, the
  lowest token id among equals).
- The penalties change only the logits of tokens in their window, and llama-cpp-python
  builds a new sampler chain for each completion and accepts into it only the tokens it
  samples: the window holds tokens generated so far, never the prompt's (every generated
  token is kept here, a superset of the window). So of every other token the one with the
  highest raw logit is the only one that can win.
- The grammar only sets rejected tokens to minus infinity, which the penalties keep there: it
  commutes with them.

So `GreedyGrammar`, the last logits processor, asks llama.cpp's own grammar about that one
token and the tokens generated so far (a few dozen) instead of all 49,152. If the grammar
allows that token, every other token is set to minus infinity (none of them could have won)
and the allowed generated tokens keep their logits, so the penalties and the greedy pick that follow
choose exactly what they would have chosen over the fully masked vocabulary. If the grammar
rejects it, the whole vocabulary is masked as before. The grammar then advances on each
chosen token, as the sampler's would. The logits processors before it (the logprob recorder)
still see the raw logits.

It holds only under those conditions (greedy selection, nothing but the penalties after the
processors: no `logit_bias`) and on a real `llama_cpp.Llama`, which `constrained_call` checks;
otherwise the grammar goes to llama-cpp-python as before. On the shipped cases the replies and
their logprobs are byte-identical either way (tests/providers/test_gguf_greedy_grammar.py).
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from farejudge.providers.gguf.grammar import llama_call_kwargs, response_gbnf

if TYPE_CHECKING:
    from llama_cpp import Llama

__all__ = ["GreedyGrammar", "constrained_call", "is_greedy"]

# llama.cpp's `llama_token_data` (int32 id, float logit, float p), as a NumPy record, so a
# candidate array is filled and read without a Python loop.
_TOKEN_DATA = np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)

# When the grammar rejects the highest token not yet generated, the next ones are looked
# at before the whole vocabulary: at most a structural token (a quote, a comma) is wanted
# there, and on the shipped cases it ranked within the first ~1,500 in 3 of 4 such steps.
SECOND_LOOK = 2048


def is_greedy(call_kwargs: Mapping[str, Any]) -> bool:
    """Whether llama-cpp-python samples these chat-completion kwargs by greedy selection
    with nothing after the logits processors but the repetition penalties."""
    # llama-cpp-python chooses greedy selection for temperature 0 exactly (its default is
    # 0.2); a logit bias is applied by a processor it appends after the caller's.
    return call_kwargs.get("temperature") == 0.0 and not call_kwargs.get("logit_bias")


def _is_llama(llm: object) -> bool:
    try:
        from llama_cpp import Llama
    except ImportError:
        return False
    return isinstance(llm, Llama)


def constrained_call(
    llm: Llama, kwargs: Mapping[str, Any]
) -> tuple[dict[str, Any], GreedyGrammar | None]:
    """The chat-completion kwargs for `llm`, and the `GreedyGrammar` that holds the reply to
    the schema grammar when it can (the caller puts it last among the logits processors and
    closes it); otherwise None, and the grammar is in the kwargs."""
    gbnf = response_gbnf(kwargs)
    if gbnf is None or not is_greedy(kwargs) or not _is_llama(llm):
        return llama_call_kwargs(kwargs), None
    call = {key: value for key, value in kwargs.items() if key != "response_format"}
    return call, GreedyGrammar(llm, gbnf)


class GreedyGrammar:
    """A llama-cpp-python logits processor that holds greedy decoding to a GBNF grammar.

    One per completion: it carries the grammar's state through the reply. `close()` frees
    llama.cpp's grammar sampler.
    """

    def __init__(self, llm: Llama, gbnf: str) -> None:
        import llama_cpp

        self._lib = llama_cpp
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not sampler:
            raise ValueError("gguf: llama.cpp could not parse the response grammar")
        self._sampler: Any = sampler
        self._generated = np.zeros(llm.n_vocab(), dtype=bool)
        self._started = False
        self.steps = 0
        """Tokens chosen under the grammar so far."""
        self.full_checks = 0
        """Of those, how many needed the whole vocabulary checked."""

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        self._advance(input_ids)
        self.steps += 1
        outside = np.where(self._generated, -np.inf, scores)
        first = int(np.argmax(outside))
        candidates = np.append(np.flatnonzero(self._generated), first)
        allowed = self._allowed(candidates)
        if allowed[-1]:
            return self._keep(scores, candidates[allowed])
        best = self._best_allowed_outside(outside)
        if best is None:
            self.full_checks += 1
            return self._mask_all(scores)
        return self._keep(scores, np.append(candidates[:-1][allowed[:-1]], best))

    def _best_allowed_outside(self, outside: npt.NDArray[np.single]) -> int | None:
        """The allowed token not yet generated that greedy selection would prefer, found
        among the SECOND_LOOK highest; None if it is not certainly among them."""
        size = outside.size
        if size <= SECOND_LOOK:
            return None
        order = np.argpartition(outside, size - SECOND_LOOK - 1)
        top, cutoff = order[size - SECOND_LOOK :], outside[order[size - SECOND_LOOK - 1]]
        # Highest logit first, the lowest id first among equals, as greedy selection ranks.
        top = top[np.lexsort((top, -outside[top]))]
        allowed = np.flatnonzero(self._allowed(top))
        if allowed.size == 0:
            return None
        best = int(top[allowed[0]])
        # A token left out with the same logit might rank before it.
        return best if outside[best] > cutoff else None

    @staticmethod
    def _keep(scores: npt.NDArray[np.single], kept: npt.NDArray[np.intp]) -> npt.NDArray[np.single]:
        """Minus infinity everywhere but at `kept`, which keep their logits."""
        masked = np.full(scores.shape, -np.inf, dtype=np.single)
        masked[kept] = scores[kept]
        return masked

    def _advance(self, input_ids: npt.NDArray[np.intc]) -> None:
        if not self._started:
            # The first step sees the prompt, which no penalty touches; each later one, the
            # token chosen before it.
            self._started = True
            return
        token = int(input_ids[-1])
        self._lib.llama_sampler_accept(self._sampler, token)
        self._generated[token] = True

    def _apply(self, data: npt.NDArray[np.void]) -> None:
        """Run the grammar over `data` in place: it sets each rejected token's logit to -inf."""
        lib = self._lib
        array = lib.llama_token_data_array(
            data=data.ctypes.data_as(ctypes.POINTER(lib.llama_token_data)),
            size=data.size,
            selected=-1,
            sorted=False,
        )
        lib.llama_sampler_apply(self._sampler, ctypes.byref(array))

    def _allowed(self, tokens: npt.NDArray[np.intp]) -> npt.NDArray[np.bool_]:
        data = np.zeros(tokens.size, dtype=_TOKEN_DATA)
        data["id"] = tokens
        self._apply(data)
        allowed: npt.NDArray[np.bool_] = np.isfinite(data["logit"])
        return allowed

    def _mask_all(self, scores: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        data = np.zeros(scores.size, dtype=_TOKEN_DATA)
        data["id"] = np.arange(scores.size)
        data["logit"] = scores
        self._apply(data)
        masked: npt.NDArray[np.single] = data["logit"]
        return masked

    def close(self) -> None:
        if self._sampler is not None:
            self._lib.llama_sampler_free(self._sampler)
            self._sampler = None
