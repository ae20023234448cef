"""The verdict schema, and the ways a judge can be asked for it.

Constraining a judge to the schema changes its behaviour, so it is a task option; how the
schema travels depends on what the provider's server accepts.
"""

from typing import Any, Literal

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema

from farejudge.core.errors import InputError
from farejudge.scorers.length_bounds import CLAIM_MAX_CHARS, REASONING_MAX_CHARS


def _verdict_schema(claim: JSONSchema, reasoning: JSONSchema) -> ResponseSchema:
    return ResponseSchema(
        name="verdict",
        description="A groundedness verdict on the assistant's answer.",
        json_schema=JSONSchema(
            type="object",
            properties={
                "grounded": JSONSchema(type="boolean"),
                "unsupported_claims": JSONSchema(type="array", items=claim),
                "reasoning": reasoning,
            },
            required=["grounded", "unsupported_claims", "reasoning"],
            additionalProperties=False,
        ),
        strict=True,
    )


# The judge's reply format as the prompts state it, in keywords OpenAI's strict mode documents
# (its strict mode refuses any other, `maxLength` among them).
VERDICT_SCHEMA = _verdict_schema(JSONSchema(type="string"), JSONSchema(type="string"))

# The same, each string bounded: a small local model otherwise runs on inside one string until
# the token limit cuts its JSON off. Only for a provider that compiles the schema into a
# grammar, which enforces the bounds; the scorer flags an over-long string from any other.
BOUNDED_VERDICT_SCHEMA = _verdict_schema(
    JSONSchema(type="string", maxLength=CLAIM_MAX_CHARS),
    JSONSchema(type="string", maxLength=REASONING_MAX_CHARS),
)

SchemaMode = Literal["off", "json_schema", "json_object"]
"""How the verdict schema is sent: not at all; as the provider's own structured-output
request (Inspect's `response_schema`, OpenAI's `json_schema`); or inside
`response_format: {"type": "json_object", "schema": ...}`, the form llama-cpp-python's
OpenAI-compatible server accepts."""

# Providers that enforce a response schema by constrained decoding, in a grammar compiled from
# it: the schema is on unless the task says otherwise, and sent with its bounds.
GRAMMAR_PROVIDERS = ("gguf/",)
# Providers whose server may compile a `json_object` format's schema into its grammar:
# llama-cpp-python's, which an `openai-api/` server may be. OpenAI's JSON mode takes no schema,
# nor does Ollama's.
JSON_OBJECT_SCHEMA_PROVIDERS = ("llama-cpp-python/", "openai-api/")


Constrained = bool | Literal["json_object"] | None
"""The task option: true, false, json_object, or None for the provider's default."""


def check_constrained(value: object) -> Constrained:
    """The `-T constrained=` value, or a one-line error naming the accepted ones."""
    if value is None or isinstance(value, bool) or value == "json_object":
        return value
    raise InputError([f"-T constrained={value!r}: give true, false or json_object"])


def schema_mode(constrained: Constrained, model: str) -> SchemaMode:
    """How the schema is sent to this model under the task option `constrained`."""
    if constrained is None:
        return "json_schema" if model.startswith(GRAMMAR_PROVIDERS) else "off"
    if constrained == "json_object":
        return "json_object"
    return "json_schema" if constrained else "off"


# JSON's unescaped string characters: no quote, no backslash, no control character.
_PLAIN_CHARS = r'[^"\\\x00-\x1f]'


def _plain_strings(schema: Any) -> Any:
    """The schema with each string's characters stated as a `pattern`.

    llama-cpp-python's server compiles a `json_object` schema into a grammar whose strings
    admit raw control characters, so a constrained reply can hold a literal newline inside
    `reasoning`, which no JSON parser accepts (seen through the server on the fixture cases).
    Its converter turns a `pattern` into the grammar character class by character class, so
    stating the characters closes that hole; the price is that a claim or the reasoning
    cannot contain a double quote or a backslash.
    """
    if isinstance(schema, list):
        return [_plain_strings(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    plain = {key: _plain_strings(value) for key, value in schema.items()}
    if plain.get("type") == "string" and "pattern" not in plain:
        bound = plain.get("maxLength")
        repeat = "*" if bound is None else f"{{0,{bound}}}"
        plain["pattern"] = f"^{_PLAIN_CHARS}{repeat}$"
    return plain


def json_object_schema() -> dict[str, Any]:
    """The verdict schema as `-T constrained=json_object` sends it, bounds and all.

    Inspect passes `extra_body` on unchanged, so the bounds reach the server's grammar.
    """
    schema: dict[str, Any] = _plain_strings(
        BOUNDED_VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
    )
    return schema


def schema_args(mode: SchemaMode, model: str) -> dict[str, Any]:
    """The generate arguments that send the schema to `model` as `mode` says."""
    if mode == "json_schema":
        bounded = model.startswith(GRAMMAR_PROVIDERS)
        return {"response_schema": BOUNDED_VERDICT_SCHEMA if bounded else VERDICT_SCHEMA}
    if mode == "json_object":
        schema = json_object_schema()
        return {"extra_body": {"response_format": {"type": "json_object", "schema": schema}}}
    return {}


def instead(mode: SchemaMode, model: str) -> str:
    """What to run once `model` refused the schema as `mode` sends it: only what can work there.

    `-T constrained=false` always works. `json_object` is offered only where a server may
    compile its schema; `true` wherever the server may take its own structured-output request
    (llama-cpp-python's server refuses it).
    """
    if mode == "json_object":
        if model.startswith("llama-cpp-python/"):
            return "run with -T constrained=false"
        return (
            "run with -T constrained=false, or -T constrained=true if the server takes the "
            "schema that way"
        )
    if model.startswith(JSON_OBJECT_SCHEMA_PROVIDERS):
        return (
            "run with -T constrained=false, or -T constrained=json_object if the server takes "
            "the schema that way"
        )
    if model.startswith("openai/"):
        return "run with -T constrained=false (OpenAI's json_object format carries no schema)"
    return "run with -T constrained=false"
