"""Synthetic cases for load and fault runs: valid, many, and recognisable from the judge prompt.

Each case's question carries its id, so a mock judge finds the case it was shown in constant
time (the scripted judge's search over every case is quadratic over thousands of cases).
"""

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.testing.scripted_judge import mock_output

CATEGORIES = ["price", "age", "silence", "injection", "conv"]
CASE_ID = re.compile(r"\[case (syn-\d+)\]")


def synthetic_case(index: int) -> dict[str, Any]:
    """Case `index` as a JSON Lines record; one in three is ungrounded (an altered price)."""
    case_id = f"syn-{index:05d}"
    dollars = 1 + index % 7
    grounded = index % 3 != 0
    cents = "25" if grounded else "75"
    claim = f"The reduced fare is ${dollars}.{cents} per ride"
    return {
        "id": case_id,
        "category": CATEGORIES[index % len(CATEGORIES)],
        "question": f"[case {case_id}] What is the reduced fare?",
        "prior_turns": [],
        "passages": [
            {
                "tag": "P1",
                "agency": "Synthetic Transit",
                "title": "Fares",
                "section": "Reduced fares",
                "url": "https://synthetic.example/fares",
                "fetched": "2026-08-01",
                "text": f"Reduced fare riders pay ${dollars}.25 per ride.",
            }
        ],
        "answer": claim + ".",
        "label": {"grounded": grounded, "unsupported_claims": [] if grounded else [claim]},
        "rationale": "Synthetic: the passage gives the .25 fare.",
        "rules": [],
    }


def write_cases(path: Path, count: int) -> list[str]:
    """Write `count` synthetic cases to `path`; their ids, in order."""
    records = [synthetic_case(i) for i in range(count)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return [r["id"] for r in records]


def case_id_shown(messages: list[ChatMessage]) -> str:
    found = CASE_ID.search(messages[-1].text)
    assert found, "the judge was shown no synthetic case"
    return found.group(1)


def gold_reply(case_id: str) -> str:
    """The verdict gold gives for a synthetic case, as the judge would reply it."""
    label = synthetic_case(int(case_id.removeprefix("syn-")))["label"]
    return json.dumps({**label, "reasoning": "Echoes the gold label."})


def synthetic_judge(reply: Callable[[str], ModelOutput] | None = None) -> Model:
    """A mockllm judge that answers each synthetic case by its id: gold, unless told otherwise."""

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        case_id = case_id_shown(messages)
        return reply(case_id) if reply else mock_output(gold_reply(case_id))

    return get_model("mockllm/model", custom_outputs=respond)
