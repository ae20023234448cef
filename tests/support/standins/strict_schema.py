"""OpenAI's Structured Outputs rules for a schema sent with `strict: true`, as its guide says.

The guide ("Supported schemas") lists the keywords strict mode takes: for strings `pattern` and
`format`; for numbers `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
`exclusiveMinimum`; for arrays `minItems` and `maxItems`; besides the structural ones. Every
object must set `additionalProperties: false` and list all its properties in `required`; the
root must be an object. An unsupported keyword is an error. The messages are the API's own
wording ("Invalid schema for response_format 'name': In context=(...), ...").
"""

from collections.abc import Mapping
from typing import Any

_STRUCTURAL = frozenset(
    {
        "type",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "definitions",
    }
)
_BY_TYPE: Mapping[str, frozenset[str]] = {
    "string": frozenset({"pattern", "format"}),
    "number": frozenset(
        {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}
    ),
    "integer": frozenset(
        {"multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"}
    ),
    "array": frozenset({"minItems", "maxItems"}),
}


def _types(node: Mapping[str, Any]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, list):
        return [str(t) for t in declared]
    return [str(declared)] if declared is not None else []


def _problem(node: Any, context: tuple[str, ...]) -> str | None:
    if not isinstance(node, Mapping):
        return None
    allowed = _STRUCTURAL.union(*(_BY_TYPE.get(t, frozenset()) for t in _types(node)))
    for key in node:
        if key not in allowed:
            return f"In context={context}, '{key}' is not permitted."
    if "object" in _types(node):
        properties = node.get("properties", {})
        if node.get("additionalProperties") is not False:
            return (
                f"In context={context}, 'additionalProperties' is required to be supplied "
                "and to be false."
            )
        missing = [name for name in properties if name not in node.get("required", [])]
        if missing:
            return (
                f"In context={context}, 'required' is required to be supplied and to be an "
                f"array including every key in properties. Missing '{missing[0]}'."
            )
        for name, child in properties.items():
            found = _problem(child, (*context, "properties", name))
            if found:
                return found
    if "items" in node:
        found = _problem(node["items"], (*context, "items"))
        if found:
            return found
    for i, option in enumerate(node.get("anyOf", [])):
        found = _problem(option, (*context, "anyOf", str(i)))
        if found:
            return found
    for group in ("$defs", "definitions"):
        for name, child in node.get(group, {}).items():
            found = _problem(child, (*context, group, name))
            if found:
                return found
    return None


def strict_schema_error(name: str, schema: Any) -> str | None:
    """The API's message refusing `schema` under strict mode, or None if it takes it."""
    if not isinstance(schema, Mapping) or "object" not in _types(schema):
        problem: str | None = "In context=(), schema must be a JSON Schema of 'type: \"object\"'."
    else:
        problem = _problem(schema, ())
    return None if problem is None else f"Invalid schema for response_format '{name}': {problem}"
