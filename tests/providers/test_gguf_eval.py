"""End to end on the real packaged model: SmolLM2-135M in-process, no key, no network."""

import importlib.util
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.event import ModelEvent

from farejudge.evals.judge_groundedness import judge_groundedness

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)


@pytest.mark.model
def test_two_cases_of_each_version_parse_as_verdicts(tmp_path: Path) -> None:
    logs = eval(
        [judge_groundedness(prompt_version=v) for v in ("v1", "v2", "v3")],
        model="gguf/smollm2-135m",
        limit=2,
        log_dir=str(tmp_path),
        display="none",
    )
    assert [log.status for log in logs] == ["success"] * 3
    for log in logs:
        assert log.samples is not None and len(log.samples) == 2
        for sample in log.samples:
            score = sample.scores["verdict_agreement"]  # type: ignore[index]
            assert score.answer != "judge failure", score.explanation
            # The embedded model is asked for the verdict schema by default, and grades by logprobs.
            (event,) = [e for e in sample.events if isinstance(e, ModelEvent)]
            asked = event.config.response_schema
            assert asked is not None and asked.name == "verdict"
            assert isinstance(score.value, dict) and score.value["graded_source"] == "logprobs"
            usage = sample.output.usage
            assert usage is not None and usage.input_tokens > 0 and usage.output_tokens > 0
