"""What a judge-matrix run would send and cost, worked out offline before anything is sent.

The requests are the matrix's samples: versions x models x cases x epochs, each one judge call,
with the messages the tasks would send. judge-matrix sends no schema probe (it creates its tasks
before any model is active; with -T constrained the first schema request of each version and
model is one of those samples, sent alone). There is no tokenizer for a remote model offline,
so tokens are estimated, and the output says how.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai import Task
from inspect_ai.model import ChatMessage, ModelCost

from farejudge.evals.verdict_schema import Constrained, schema_args, schema_mode

CHARS_PER_TOKEN = 4
"""The usual rule of thumb for English text with BPE tokenizers (OpenAI's, Anthropic's)."""
OUTPUT_TOKENS_PER_VERDICT = 100
"""A verdict JSON with a few claims and a short reasoning runs to about 95 tokens (measured
on SmolLM2's constrained verdicts); the task sets no max_tokens, so this is an assumption.
Reasoning models spend their reasoning on top of it."""
NO_PRICE = "n/a (no price file)"
NOT_PRICED = "n/a (not in the price file)"


@dataclass(frozen=True)
class Line:
    version: str
    model: str
    requests: int
    input_tokens: int
    output_tokens: int
    cost: float | None


def _tokens(chars: int) -> int:
    return math.ceil(chars / CHARS_PER_TOKEN)


def _message_chars(messages: Sequence[ChatMessage]) -> int:
    return sum(len(m.text) for m in messages)


def _schema_chars(constrained: Constrained, model: str) -> int:
    """What the verdict schema adds to each request's input, where it is sent."""
    args = schema_args(schema_mode(constrained, model), model)
    if not args:
        return 0
    return len(json.dumps(args, default=lambda o: o.model_dump(exclude_none=True)))


def estimate(
    tasks: Sequence[Task],
    models: Sequence[str],
    epochs: int,
    limit: int | None,
    constrained: Constrained,
    costs: dict[str, ModelCost] | None,
) -> list[Line]:
    """One line per version and model."""
    lines = []
    for task in tasks:
        samples = list(task.dataset)[:limit]
        chars = sum(
            _message_chars(s.input) if not isinstance(s.input, str) else len(s.input)
            for s in samples
        )
        version = str((task.metadata or {}).get("prompt_version"))
        for model in models:
            requests = len(samples) * epochs
            input_tokens = (
                _tokens(chars + len(samples) * _schema_chars(constrained, model)) * epochs
            )
            output_tokens = requests * OUTPUT_TOKENS_PER_VERDICT
            price = (costs or {}).get(model)
            cost = (
                None
                if price is None
                else (input_tokens * price.input + output_tokens * price.output) / 1e6
            )
            lines.append(Line(version, model, requests, input_tokens, output_tokens, cost))
    return lines


def _money(cost: float | None, priced: bool) -> str:
    if cost is None:
        return NOT_PRICED if priced else NO_PRICE
    return f"${cost:,.4f}"


def report(lines: Sequence[Line], cost_file: str | None) -> str:
    """The dry run as the user reads it: a table, the totals, and how they were estimated."""
    total = sum(line.requests for line in lines)
    costs = [line.cost for line in lines]
    rows = [
        f"{line.version:<8} {line.model:<40} {line.requests:>8} {line.input_tokens:>12} "
        f"{line.output_tokens:>12}  {_money(line.cost, cost_file is not None)}"
        for line in lines
    ]
    known = [c for c in costs if c is not None]
    total_cost = (
        _money(sum(known), True) + ("" if len(known) == len(costs) else " (priced models only)")
        if known
        else _money(None, cost_file is not None)
    )
    return "\n".join(
        [
            "judge-matrix --dry-run: nothing was sent",
            f"requests: {total} (one judge call per version, model, case and epoch; "
            "no schema probe)",
            f"{'version':<8} {'model':<40} {'requests':>8} {'input tok':>12} "
            f"{'output tok':>12}  cost",
            *rows,
            f"{'total':<49} {total:>8} {sum(x.input_tokens for x in lines):>12} "
            f"{sum(x.output_tokens for x in lines):>12}  {total_cost}",
            f"input tokens: the characters of each request's messages (and of the verdict "
            f"schema, where it is sent) / {CHARS_PER_TOKEN}; no tokenizer is used.",
            f"output tokens: {OUTPUT_TOKENS_PER_VERDICT} per request, an assumed verdict size "
            "(the task sets no max_tokens; reasoning models spend more).",
            "cost: "
            + (
                f"the input and output prices in {cost_file}; prompt caching not counted."
                if cost_file
                else "give --model-cost-config FILE to price it."
            ),
            "with --cache, requests already in the cache are not sent: the count is a bound.",
        ]
    )
