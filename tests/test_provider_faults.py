"""Provider faults: the run completes, each fault is a judge failure with its reason, and a run
stopped midway resumes without paying again for the samples it finished."""

import math
from pathlib import Path
from typing import get_args

import pytest
from inspect_ai import eval, eval_retry, eval_set
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from tests.fault_judge import CALLS, Fault
from tests.scripted_judge import mock_output
from tests.synthetic_cases import case_id_shown, gold_reply, write_cases

TASK = "evals/judge_groundedness.py"
SENTINEL_KEY = "sk-sentinel-0123456789abcdef"

# What the verdict scorer must say for each fault, and how many calls the fault may cost.
EXPECTED: dict[Fault, tuple[str, int]] = {
    "rate limit": ("provider error: RateLimitError: Rate limit reached", 2),
    "connection dropped": ("provider error: APIConnectionError: Connection error.", 2),
    "server error": ("provider error: InternalServerError: The server had an error", 2),
    "bad request": ("provider error: BadRequestError: Invalid 'messages': too long", 1),
    "key echoed": ("Incorrect API key provided: [OPENAI_API_KEY redacted]", 1),
    "local crash": ("provider error: ValueError: llama_decode returned -1", 1),
    "timeout": ("provider error: AttemptTimeoutError: attempt_timeout '1' exceeded", 2),
    "empty reply": ("empty reply", 1),
    "refusal": ("refusal", 1),
    "cut off": ("cut off at the token limit", 1),
    "prose": ("no complete JSON object", 1),
}
FAILURES = len(EXPECTED)
CASES = 3 * FAILURES


def verdict(sample: EvalSample) -> tuple[dict[str, float], str, str, dict[str, object]]:
    score = (sample.scores or {})["verdict_agreement"]
    assert isinstance(score.value, dict) and score.metadata is not None
    return score.value, score.answer or "", score.explanation or "", score.metadata


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    scores = next(s for s in log.results.scores if s.name == "verdict_agreement")
    return {name: m.value for name, m in scores.metrics.items()}


def test_every_fault_is_a_named_judge_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    ids = write_cases(tmp_path / "cases.jsonl", CASES)
    faults: dict[str, Fault] = dict(zip(ids, EXPECTED, strict=False))
    recovers = ids[FAILURES]
    faults[recovers] = "rate limit, then answers"
    CALLS.clear()

    (log,) = eval(
        TASK,
        task_args={"dataset": str(tmp_path / "cases.jsonl")},
        model=get_model("faulty_judge/flaky", faults=faults),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=1,
        attempt_timeout=1,
        # Inspect then raises the refusal instead of returning it; it must read the same.
        fail_on_refusal=True,
    )

    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == CASES
    for sample in log.samples:
        value, answer, explanation, metadata = verdict(sample)
        fault = faults.get(str(sample.id))
        if fault in EXPECTED:
            reason, calls = EXPECTED[fault]
            assert value["judge_failure"] == 1 and value["agree"] == 0, fault
            assert math.isnan(value["judge_ungrounded"]), fault
            assert answer == "judge failure"
            assert reason in str(metadata["failure"]) and reason in explanation, explanation
            assert metadata["verdict"] is None
            assert CALLS[str(sample.id)] == calls, fault
        else:
            # Inspect's own retry absorbed the transient error: a verdict, read and agreeing.
            assert value["judge_failure"] == 0 and value["agree"] == 1, sample.id
            assert CALLS[str(sample.id)] == (2 if sample.id == recovers else 1)
        assert SENTINEL_KEY not in explanation

    m = metrics(log)
    assert m["judge_failure_rate"] == pytest.approx(FAILURES / CASES)
    assert m["verdict_accuracy"] == pytest.approx(1 - FAILURES / CASES)
    assert m["cohen_kappa"] == 1.0, "failures must not enter the confusion table"
    assert log.eval.model_args["faults"] == faults
    assert set(EXPECTED) | {"rate limit, then answers", "interrupt once"} == set(get_args(Fault))


def test_stopped_eval_set_resumes_without_paying_twice(tmp_path: Path) -> None:
    """On mockllm: Ctrl-C during the 13th judge call, then the same eval_set started again."""
    ids = write_cases(tmp_path / "cases.jsonl", 20)
    judged: list[str] = []
    interrupt_at = [13]

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        case_id = case_id_shown(messages)
        judged.append(case_id)
        if len(judged) == interrupt_at[0]:
            raise KeyboardInterrupt
        return mock_output(gold_reply(case_id))

    def run() -> tuple[bool, list[EvalLog]]:
        return eval_set(
            TASK,
            task_args={"dataset": str(tmp_path / "cases.jsonl")},
            model=get_model("mockllm/model", custom_outputs=respond),
            log_dir=str(tmp_path / "logs"),
            display="none",
            max_samples=4,
            retry_attempts=0,
        )

    with pytest.raises(KeyboardInterrupt):
        run()
    (stopped,) = [read_eval_log(p) for p in (tmp_path / "logs").glob("*.eval")]
    finished = {str(s.id) for s in stopped.samples or []}
    assert stopped.status != "success" and 0 < len(finished) < 20

    judged.clear()
    interrupt_at[0] = 0
    ok, (log,) = run()

    assert ok and log.status == "success"
    assert not finished & set(judged), "a finished sample was judged (and paid for) again"
    assert sorted(judged) == sorted(set(ids) - finished)
    resumed = read_eval_log(log.location)
    assert sorted(str(s.id) for s in resumed.samples or []) == ids
    assert all(verdict(s)[0]["agree"] == 1 for s in resumed.samples or [])


def test_stopped_eval_resumes_with_eval_retry(tmp_path: Path) -> None:
    """`inspect eval-retry` on a run stopped by Ctrl-C judges only what the log lacks."""
    ids = write_cases(tmp_path / "cases.jsonl", 12)
    CALLS.clear()
    with pytest.raises(KeyboardInterrupt):
        eval(
            TASK,
            task_args={"dataset": str(tmp_path / "cases.jsonl")},
            model=get_model("faulty_judge/flaky", faults={ids[7]: "interrupt once"}),
            log_dir=str(tmp_path / "logs"),
            display="none",
            max_samples=1,
        )
    (stopped,) = list((tmp_path / "logs").glob("*.eval"))
    finished = {str(s.id) for s in read_eval_log(stopped).samples or []}
    assert 0 < len(finished) < len(ids)
    before = CALLS.copy()

    (log,) = eval_retry(str(stopped), log_dir=str(tmp_path / "logs"), display="none")

    assert log.status == "success"
    again = CALLS - before
    assert not finished & set(again), "a finished sample was judged (and paid for) again"
    assert set(again) == set(ids) - finished
    assert sorted(str(s.id) for s in read_eval_log(log.location).samples or []) == ids


def test_a_sample_stopped_by_its_time_limit_is_a_judge_failure(tmp_path: Path) -> None:
    """Inspect ends the sample, not the solver: the judge never replied, and the scorer says so."""
    ids = write_cases(tmp_path / "cases.jsonl", 2)
    (log,) = eval(
        TASK,
        task_args={"dataset": str(tmp_path / "cases.jsonl")},
        model=get_model("faulty_judge/slow", faults={ids[0]: "timeout"}),
        log_dir=str(tmp_path / "logs"),
        display="none",
        time_limit=1,
    )
    assert log.status == "success" and log.samples is not None
    by_id = {str(s.id): verdict(s) for s in log.samples}
    value, _, explanation, metadata = by_id[ids[0]]
    assert value["judge_failure"] == 1 and metadata["failure"] == "no reply from the judge"
    assert explanation.startswith("Judge failure: no reply from the judge.")
    assert by_id[ids[1]][0]["agree"] == 1
