"""Which schema requests wait for a model's first one: a server's do, a grammar provider's not."""

from typing import Any

import anyio
import pytest
from inspect_ai.model import ModelName
from inspect_ai.solver import TaskState

from farejudge.evals.schema_check import SchemaCheck


def _state(model: str) -> TaskState:
    return TaskState(model=ModelName(model), sample_id=1, epoch=1, input="x", messages=[])


async def _most_at_once(model: str, requests: int) -> int:
    """How many of `requests` concurrent schema requests to `model` were in flight together."""
    check = SchemaCheck()
    inside = most = 0

    async def generate(state: TaskState, *args: Any, **kwargs: Any) -> TaskState:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        # Long enough for every other request to reach its own generate, if let through.
        await anyio.sleep(0.05)
        inside -= 1
        return state

    async with anyio.create_task_group() as group:
        for _ in range(requests):
            group.start_soon(check.generate, _state(model), generate, "json_schema")
    return most


@pytest.mark.parametrize(
    ("model", "together"),
    [
        # The schema is compiled into a grammar in this process: every context starts at once.
        ("gguf/smollm2-135m", 3),
        # A server might refuse it: the first request goes alone, then the rest together.
        ("openai-api/local/judge", 2),
    ],
)
def test_only_a_server_s_first_schema_request_goes_alone(model: str, together: int) -> None:
    assert anyio.run(_most_at_once, model, 3) == together
