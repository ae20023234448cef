"""The verdict's length bounds, and the strings of a verdict that break them. Pure.

A small local model can run on inside one string until the token limit cuts its JSON off, so
the verdict bounds each claim and its reasoning. Only a grammar compiled from the schema holds
a model to them (llama.cpp's, in the `gguf/` provider and llama-cpp-python's server): OpenAI's
strict mode refuses `maxLength`, and Inspect drops it for every other OpenAI-compatible server
and for Anthropic. Every other judge's verdict is checked against them here: an over-long string
is flagged, and the verdict is still scored as the judge wrote it, never cut.
"""

from collections.abc import Sequence
from dataclasses import dataclass

# Characters, as JSON Schema's maxLength counts them (code points, not bytes or tokens).
CLAIM_MAX_CHARS = 300
REASONING_MAX_CHARS = 400


@dataclass(frozen=True)
class OverLong:
    """One string of a verdict longer than its bound."""

    field: str
    """Where it is: `reasoning`, or `unsupported_claims[i]` (0-based)."""
    chars: int
    bound: int


def over_long(unsupported_claims: Sequence[str], reasoning: str) -> list[OverLong]:
    """The verdict's strings over their bounds: claims in order, then the reasoning."""
    found = [
        OverLong(f"unsupported_claims[{i}]", len(claim), CLAIM_MAX_CHARS)
        for i, claim in enumerate(unsupported_claims)
        if len(claim) > CLAIM_MAX_CHARS
    ]
    if len(reasoning) > REASONING_MAX_CHARS:
        found.append(OverLong("reasoning", len(reasoning), REASONING_MAX_CHARS))
    return found


def over_long_note(found: Sequence[OverLong]) -> str:
    """A sentence for the score's explanation naming each over-long string; "" for none."""
    if not found:
        return ""
    each = "; ".join(f"{o.field} has {o.chars} characters (bound {o.bound})" for o in found)
    return f"Over the verdict's length bounds (scored as written, not cut): {each}."
