"""The verdict schema option: on by default only where the provider enforces it, and logged."""

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent

from farejudge.evals.dataset import load_cases
from farejudge.evals.verdict_schema import VERDICT_SCHEMA, schema_mode
from farejudge.testing.scripted_judge import echo_gold, scripted_judge
from tests.support.cli import task_file
from tests.support.paths import FIXTURES

# A str: it is also a task argument, which Inspect records in the log.
CASES_FILE = str(FIXTURES / "cases.jsonl")


@pytest.mark.parametrize(
    ("constrained", "model", "expected"),
    [
        (None, "gguf/smollm2-135m", "json_schema"),
        (None, "openai/gpt-4o-mini", "off"),
        (None, "mockllm/model", "off"),
        (False, "gguf/smollm2-135m", "off"),
        (True, "openai/gpt-4o-mini", "json_schema"),
        ("json_object", "openai-api/local/m", "json_object"),
    ],
)
def test_schema_is_on_for_constrained_decoding_providers(
    constrained: bool | str | None, model: str, expected: str
) -> None:
    assert schema_mode(constrained, model) == expected  # type: ignore[arg-type]


def test_schema_states_the_verdict_shape() -> None:
    schema = VERDICT_SCHEMA.json_schema
    assert schema.properties is not None
    assert list(schema.properties) == ["grounded", "unsupported_claims", "reasoning"]
    assert schema.properties["grounded"].type == "boolean"
    items = schema.properties["unsupported_claims"].items
    assert items is not None and items.type == "string"
    assert schema.required == ["grounded", "unsupported_claims", "reasoning"]


@pytest.mark.parametrize("constrained", [True, False, None])
def test_the_log_records_whether_the_schema_was_asked_for(
    constrained: bool | None, tmp_path: Path
) -> None:
    cases = load_cases(CASES_FILE)
    (log,) = eval(
        task_file(),
        task_args={"dataset": CASES_FILE, "constrained": constrained},
        model=scripted_judge(cases, echo_gold),
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success"
    assert log.eval.metadata is not None
    assert log.eval.metadata["constrained"] == ("auto" if constrained is None else constrained)
    assert log.samples is not None and len(log.samples) == len(cases)
    for sample in log.samples:
        (event,) = [e for e in sample.events if isinstance(e, ModelEvent)]
        asked = event.config.response_schema
        assert (asked is not None and asked.name == "verdict") is bool(constrained)
