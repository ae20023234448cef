"""End to end with `eval()`: each sample's graded score, its source, and how it was asked for.

A mockllm judge answers every case with one verdict whose tokens carry logprobs, so the
graded score each mode gives is known; the real gguf/ provider gives one of its own.
"""

import importlib.util
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, score
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.errors import InputError
from farejudge.evals.graded_request import TOP_LOGPROBS
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.scorers.verdict_scorer import verdict_agreement
from tests.support.graded_replies import LLAMA, LLAMA_TOKENS, graded_values, output_of, share
from tests.support.paths import FIXTURES

CASES = str(FIXTURES / "cases.jsonl")
# LLAMA says grounded; its alternatives at the value put this much on false.
EXPECTED = share([-1.946, -4.651], [-0.309, -2.369])


def judged(
    graded: str, tmp_path: Path, reply: str = LLAMA, **options: Any
) -> tuple[EvalLog, list[GenerateConfig]]:
    """A run of two cases under `-T graded=`, and the config each request was sent with."""
    configs: list[GenerateConfig] = []

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        configs.append(config)
        output = output_of(reply, LLAMA_TOKENS if reply == LLAMA else None)
        # With usage set, mockllm counts no tokens (its tokenizer would be downloaded).
        output.usage = ModelUsage(input_tokens=700, output_tokens=40, total_tokens=740)
        return output

    (log,) = eval(
        judge_groundedness(dataset=CASES, graded=graded),
        model=get_model("mockllm/model", custom_outputs=respond),
        limit=2,
        log_dir=str(tmp_path),
        display="none",
        **options,
    )
    assert log.status == "success", log.error
    return log, configs


def test_logprobs_are_asked_for_and_graded(tmp_path: Path) -> None:
    log, configs = judged("logprobs", tmp_path)
    assert [(c.logprobs, c.top_logprobs) for c in configs] == [(True, TOP_LOGPROBS)] * 2
    assert log.eval.task_args["graded"] == "logprobs"
    assert log.eval.metadata is not None and log.eval.metadata["graded"] == "logprobs"
    for p, source, explanation in graded_values(log):
        assert source == "logprobs" and p == pytest.approx(EXPECTED)
        assert f"Graded: P(ungrounded) = {EXPECTED:.2f} from the judge's token probabilities." in (
            explanation
        )
    # The mode is the scorer's option, recorded once for the run, not in each sample.
    assert [(s.name, s.options) for s in log.eval.scorers or []] == [
        ("verdict_agreement", {"graded": "logprobs"})
    ]
    assert log.samples and not [s for s in log.samples if "graded_mode" in s.metadata]


def test_the_log_keeps_the_reading_not_the_logprobs(tmp_path: Path) -> None:
    judged_log, _ = judged("logprobs", tmp_path)
    log = read_eval_log(judged_log.location)
    assert log.samples
    for sample in log.samples:
        assert sample.metadata["graded_reading"] == {"p_ungrounded": pytest.approx(EXPECTED)}
        assert sample.output.choices[0].logprobs is None
        events = [e for e in sample.events if isinstance(e, ModelEvent)]
        assert events and all(c.logprobs is None for e in events for c in e.output.choices)
    # Re-scoring the log from its file with the run's option gives the graded score the run gave.
    rescored = score(log, verdict_agreement("logprobs"), action="overwrite", display="none")
    assert graded_values(rescored) == graded_values(judged_log)


def test_a_cached_reply_keeps_its_logprobs_for_the_next_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The logprobs are dropped from the sample after Inspect cached the reply, not from the cache.
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    first, asked = judged("logprobs", tmp_path / "first", cache=True)
    again, asked_again = judged("logprobs", tmp_path / "again", cache=True)
    assert len(asked) == 2 and asked_again == []
    assert [source for _, source, _ in graded_values(again)] == ["logprobs"] * 2
    assert graded_values(again) == graded_values(first)


def test_auto_off_mockllm_is_the_verdict_itself_unasked(tmp_path: Path) -> None:
    log, configs = judged("auto", tmp_path)
    assert [c.logprobs for c in configs] == [None, None]
    assert log.eval.metadata is not None and log.eval.metadata["graded"] == "auto"
    # LLAMA says grounded: P(ungrounded) 0 from each epoch's verdict.
    assert [(p, source) for p, source, _ in graded_values(log)] == [(0.0, "epochs")] * 2


def test_off_gives_none(tmp_path: Path) -> None:
    log, configs = judged("off", tmp_path)
    assert [c.logprobs for c in configs] == [None, None]
    for p, source, explanation in graded_values(log):
        assert math.isnan(p) and source == "none"
        # The run's option says so once; no sample repeats it.
        assert "graded" not in explanation.lower()


def test_a_judge_failure_has_no_graded_score_even_with_logprobs(tmp_path: Path) -> None:
    log, _ = judged("logprobs", tmp_path, reply="I cannot tell.")
    for p, source, explanation in graded_values(log):
        assert math.isnan(p) and source == "none"
        assert explanation.startswith("Judge failure:") and "graded" not in explanation.lower()


@pytest.mark.parametrize("value", ["yes", "logprob", ["logprobs", "off"], True])
def test_an_unknown_mode_is_one_line_naming_the_accepted_ones(value: object) -> None:
    with pytest.raises(InputError) as err:
        judge_groundedness(dataset=CASES, graded=value)  # type: ignore[arg-type]
    assert err.value.problems == [f"-T graded={value!r}: give auto, logprobs, epochs or off"]
    # The scorer's own option, as `inspect score -S graded=` gives it.
    with pytest.raises(InputError) as err:
        verdict_agreement(value)  # type: ignore[arg-type]
    assert err.value.problems == [f"-S graded={value!r}: give auto, logprobs, epochs or off"]


@pytest.mark.model
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)
def test_the_gguf_judge_grades_by_default_from_its_own_probabilities(tmp_path: Path) -> None:
    (log,) = eval(
        judge_groundedness(),
        model="gguf/smollm2-135m",
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    ((p, source, explanation),) = graded_values(log)
    assert source == "logprobs", explanation
    assert 0.0 < p < 1.0
    assert log.samples and log.samples[0].metadata["graded_reading"] == {"p_ungrounded": p}
