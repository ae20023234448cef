"""The verdict schema, and the ways a judge can be asked for it.

Constraining a judge to the schema changes its behaviour, so it is a task option; how the
schema travels depends on what the provider's server accepts.
"""

from typing import Any, Literal

from inspect_ai.model import ResponseSchema
from inspect_ai.util import JSONSchema

from farejudge.core.errors import InputError

# The judge's reply format as the prompts state it. String bounds keep a small local model
# from running on inside one string until the token limit cuts the JSON off.
VERDICT_SCHEMA = ResponseSchema(
    name="verdict",
    description="A groundedness verdict on the assistant's answer.",
    json_schema=JSONSchema(
        type="object",
        properties={
            "grounded": JSONSchema(type="boolean"),
            "unsupported_claims": JSONSchema(
                type="array", items=JSONSchema(type="string", maxLength=300)
            ),
            "reasoning": JSONSchema(type="string", maxLength=400),
        },
        required=["grounded", "unsupported_claims", "reasoning"],
        additionalProperties=False,
    ),
    strict=True,
)

SchemaMode = Literal["off", "json_schema", "json_object"]
"""How the verdict schema is sent: not at all; as the provider's own structured-output
request (Inspect's `response_schema`, OpenAI's `json_schema`); or inside
`response_format: {"type": "json_object", "schema": ...}`, the form llama-cpp-python's
OpenAI-compatible server accepts."""

# Providers that enforce a response schema by constrained decoding, for which the schema is
# on unless the task says otherwise.
SCHEMA_BY_DEFAULT = ("gguf/",)


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
        return "json_schema" if model.startswith(SCHEMA_BY_DEFAULT) else "off"
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
    """The verdict schema as `-T constrained=json_object` sends it."""
    schema: dict[str, Any] = _plain_strings(
        VERDICT_SCHEMA.json_schema.model_dump(exclude_none=True)
    )
    return schema


def schema_args(mode: SchemaMode) -> dict[str, Any]:
    if mode == "json_schema":
        return {"response_schema": VERDICT_SCHEMA}
    if mode == "json_object":
        schema = json_object_schema()
        return {"extra_body": {"response_format": {"type": "json_object", "schema": schema}}}
    return {}
