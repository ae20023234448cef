"""Response schema to llama.cpp grammar.

A JSON schema becomes the GBNF grammar llama.cpp decodes under, the way
llama-cpp-python itself compiles a `response_format` schema, with two changes: strings
may not hold raw control characters (which its 0.3.x converter lets through and
`json.loads` rejects), and a model may cap every unbounded array of the schema so a reply
that loops inside a list still closes its JSON.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

__all__ = [
    "cap_arrays",
    "cap_response_format",
    "llama_call_kwargs",
    "response_gbnf",
    "strict_json_strings",
]


def cap_arrays(schema: Any, max_items: int) -> Any:
    """The schema with `maxItems` set on every array that has none."""
    if isinstance(schema, list):
        return [cap_arrays(item, max_items) for item in schema]
    if not isinstance(schema, dict):
        return schema
    capped = {key: cap_arrays(value, max_items) for key, value in schema.items()}
    if capped.get("type") == "array" and "maxItems" not in capped:
        capped["maxItems"] = max_items
    return capped


def cap_response_format(kwargs: Mapping[str, Any], max_items: int | None) -> dict[str, Any]:
    """Chat-completion kwargs whose schema `response_format` has its arrays capped."""
    call = dict(kwargs)
    fmt = call.get("response_format")
    if max_items is not None and isinstance(fmt, dict) and "schema" in fmt:
        call["response_format"] = {**fmt, "schema": cap_arrays(fmt["schema"], max_items)}
    return call


# llama-cpp-python 0.3.x's schema converter lets a JSON string hold raw control characters
# (`char ::= [^"\\] | ...`), so a constrained reply can contain a literal newline inside a
# string, which strict JSON parsers (json.loads) reject; seen on real judge cases. Its own
# plain-JSON grammar and upstream llama.cpp exclude them; so does the patched rule.
_LOOSE_CHAR_RULE = re.compile(r'^(char(?:-\d+)?) ::= \[\^"\\\\\] ', re.MULTILINE)
_STRICT_CHAR_CLASS = r'[^"\\\x7F\x00-\x1F]'


def strict_json_strings(gbnf: str) -> str:
    """Make a schema grammar's string characters exclude raw control characters."""
    return _LOOSE_CHAR_RULE.sub(lambda m: f"{m.group(1)} ::= {_STRICT_CHAR_CLASS} ", gbnf)


@lru_cache(maxsize=32)
def _schema_gbnf(schema_json: str) -> str:
    # Keyed by the schema's JSON text: every sample of a run sends the same schema, and
    # converting it is pure.
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    return strict_json_strings(json_schema_to_gbnf(schema_json))


def response_gbnf(kwargs: Mapping[str, Any]) -> str | None:
    """The strict-string grammar of a schema `response_format`, or None if there is none
    (or llama-cpp-python's schema converter cannot be found)."""
    fmt = kwargs.get("response_format")
    if not isinstance(fmt, Mapping) or fmt.get("type") != "json_object" or "schema" not in fmt:
        return None
    try:
        # Key order is kept: it is the order in which the model must write the properties.
        return _schema_gbnf(json.dumps(fmt["schema"]))
    except (ImportError, AttributeError):
        # Grammar internals moved (or no llama_cpp at all).
        return None


def llama_call_kwargs(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Swap a schema `response_format` for the equivalent grammar with strict strings.

    This is exactly what llama-cpp-python does with `response_format` (compile the schema
    to GBNF), plus the control-character fix; the grammar text is cached per schema.
    """
    call = dict(kwargs)
    gbnf = response_gbnf(call)
    if gbnf is None:
        # No schema; or no converter, then llama-cpp-python handles response_format itself,
        # control characters and all.
        return call
    from llama_cpp.llama_grammar import LlamaGrammar

    del call["response_format"]
    call["grammar"] = LlamaGrammar.from_string(gbnf, verbose=False)
    return call
