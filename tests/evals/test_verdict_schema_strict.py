"""The verdict schema each provider gets: strict-mode keywords for OpenAI, bounds for grammars.

OpenAI's strict mode refuses a keyword it does not document (`maxLength` for one), and Inspect
drops the length keywords for every other OpenAI-compatible server: the bounds a small local
model needs are sent only where a grammar compiled from the schema enforces them.
"""

import json
import re
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig

from farejudge.evals.verdict_schema import (
    VERDICT_SCHEMA,
    instead,
    json_object_schema,
    schema_args,
)
from farejudge.providers.gguf.grammar import llama_call_kwargs
from farejudge.providers.gguf.mapping import generate_kwargs
from farejudge.scorers.length_bounds import CLAIM_MAX_CHARS, REASONING_MAX_CHARS
from tests.support.standins.strict_schema import strict_schema_error


def test_the_strict_schema_uses_only_keywords_strict_mode_documents() -> None:
    # As Inspect sends it to openai/ (Chat Completions and the Responses API alike): its
    # dump without nulls, nothing stripped.
    sent = VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
    assert VERDICT_SCHEMA.strict is True
    assert strict_schema_error(VERDICT_SCHEMA.name, sent) is None
    # What the stand-in refuses is what the schema used to send.
    bounded = {**sent, "properties": {**sent["properties"], "reasoning": {"type": "string"}}}
    bounded["properties"]["reasoning"]["maxLength"] = REASONING_MAX_CHARS
    assert strict_schema_error("verdict", bounded) == (
        "Invalid schema for response_format 'verdict': In context=('properties', 'reasoning'), "
        "'maxLength' is not permitted."
    )


def rule(gbnf: str, name: str) -> str:
    (line,) = [line for line in gbnf.splitlines() if line.startswith(f"{name} ::=")]
    return line


def test_the_gguf_grammar_bounds_each_claim_and_the_reasoning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    handed: list[str] = []
    monkeypatch.setattr(LlamaGrammar, "from_string", lambda gbnf, verbose=True: handed.append(gbnf))
    # The schema the task sends gguf/, through the provider's own request mapping.
    config = GenerateConfig(**schema_args("json_schema", "gguf/smollm2-135m"))
    llama_call_kwargs(generate_kwargs(config))
    (gbnf,) = handed
    # llama.cpp's converter spells a bound of n as n nested optional characters.
    assert rule(gbnf, "reasoning").count("char") == REASONING_MAX_CHARS
    assert rule(gbnf, "unsupported-claims-item").count("char") == CLAIM_MAX_CHARS
    assert re.search(r'^char ::= \[\^"\\\\\\x7F\\x00-\\x1F\]', gbnf, re.M), "strict strings"


def test_no_other_provider_is_sent_a_length_bound() -> None:
    for model in ("openai/gpt-5-mini", "openai/gpt-4o-mini", "openai-api/local/m", "anthropic/c"):
        schema = schema_args("json_schema", model)["response_schema"].json_schema
        assert "maxLength" not in json.dumps(schema.model_dump(exclude_none=True)), model


def test_json_object_keeps_its_bounds_for_llama_cpp_pythons_server() -> None:
    # That server compiles the json_object schema (and its patterns) into its grammar itself.
    fmt: dict[str, Any] = schema_args("json_object", "openai-api/local/m")["extra_body"][
        "response_format"
    ]
    assert fmt == {"type": "json_object", "schema": json_object_schema()}
    properties = fmt["schema"]["properties"]
    assert properties["reasoning"]["maxLength"] == REASONING_MAX_CHARS
    assert properties["reasoning"]["pattern"].endswith(f"{{0,{REASONING_MAX_CHARS}}}$")
    assert properties["unsupported_claims"]["items"]["maxLength"] == CLAIM_MAX_CHARS


def test_each_rejection_suggests_what_works_on_that_provider() -> None:
    # json_object carries the schema only where the server compiles it: llama-cpp-python's
    # server, which an openai-api/ server may be. OpenAI's json_object takes no schema.
    assert instead("json_schema", "openai/gpt-4o-mini") == (
        "run with -T constrained=false (OpenAI's json_object format carries no schema)"
    )
    assert instead("json_schema", "openai/gpt-5-mini") == instead(
        "json_schema", "openai/gpt-4o-mini"
    )
    assert instead("json_schema", "openai-api/local/m") == (
        "run with -T constrained=false, or -T constrained=json_object if the server takes the "
        "schema that way"
    )
    assert instead("json_schema", "llama-cpp-python/m") == instead(
        "json_schema", "openai-api/local/m"
    )
    assert instead("json_schema", "ollama/qwen3") == "run with -T constrained=false"
    assert instead("json_object", "openai-api/local/m") == (
        "run with -T constrained=false, or -T constrained=true if the server takes the schema "
        "that way"
    )
    # llama-cpp-python's server refuses json_schema outright.
    assert instead("json_object", "llama-cpp-python/m") == "run with -T constrained=false"
