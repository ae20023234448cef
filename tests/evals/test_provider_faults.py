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

from farejudge.comparison.cli import run as compare
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import case_id_shown, gold_reply, write_cases
from tests.support.cli import task_file
from tests.support.fault_judge import CALLS, OUTAGE_OVER, Fault, provider_exception

SENTINEL_KEY = "sk-sentinel-0123456789abcdef"

# Outages: the sample errors, unscored, its error naming the cause; whether Inspect retries
# it (2: at least once more; how often is Inspect's retry policy, which adapts to 429s).
# The text after a class name is the provider's, and openai words a dropped connection itself.
OUTAGES: dict[Fault, tuple[str, int]] = {
    "rate limit": ("RateLimitError: HTTP 429: Rate limit reached", 2),
    "connection dropped": (
        f"APIConnectionError: {provider_exception('connection dropped', attempt=1)}",
        2,
    ),
    "server error": ("InternalServerError: HTTP 500: The server had an error", 2),
    "bad request": ("BadRequestError: HTTP 400: Invalid 'messages': too long", 1),
    "key echoed": ("Incorrect API key provided: [OPENAI_API_KEY redacted]", 1),
    "local crash": ("ValueError: llama_decode returned -1", 1),
    "timeout": ("AttemptTimeoutError", 2),
}
# The judge's own behaviour: scored, as a judge failure that says why.
JUDGE_FAILURES: dict[Fault, str] = {
    "empty reply": "empty reply",
    "refusal": "refusal",
    "cut off": "cut off at the token limit",
    "prose": "no complete JSON object",
}
CASES = 3 * (len(OUTAGES) + len(JUDGE_FAILURES))


@pytest.fixture(autouse=True)
def outage_in_progress() -> None:
    """Each test starts with no calls counted and the faulty judge's outage not yet over."""


def verdict(sample: EvalSample) -> tuple[dict[str, float], str, str, dict[str, object]]:
    score = (sample.scores or {})["verdict_agreement"]
    assert isinstance(score.value, dict) and score.metadata is not None
    return score.value, score.answer or "", score.explanation or "", score.metadata


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    scores = next(s for s in log.results.scores if s.name == "verdict_agreement")
    return {name: m.value for name, m in scores.metrics.items()}


def faulty_run(tmp_path: Path, faults: dict[str, Fault], log_dir: str) -> EvalLog:
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(tmp_path / "cases.jsonl"), "fail_on_error": 0.5},
        # On the model as well as the eval: an eval-set run earlier in the same process leaves
        # Inspect's active generate config in place, and a model that is not the active one
        # inherits its retry settings from there.
        model=get_model(
            "faulty_judge/flaky",
            faults=faults,
            config=GenerateConfig(max_retries=1, attempt_timeout=1),
            memoize=False,
        ),
        log_dir=str(tmp_path / log_dir),
        display="none",
        max_retries=1,
        attempt_timeout=1,
        # Inspect then raises the refusal instead of returning it; it must read the same.
        fail_on_refusal=True,
    )
    return log


@pytest.mark.slow
def test_outages_error_the_sample_and_judge_failures_are_scored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL_KEY)
    # Counted per case id, which other tests' synthetic cases share.
    CALLS.clear()
    ids = write_cases(tmp_path / "cases.jsonl", CASES)
    faults: dict[str, Fault] = dict(zip(ids, [*OUTAGES, *JUDGE_FAILURES], strict=False))
    recovers = ids[len(faults)]
    faults[recovers] = "rate limit, then answers"

    log = faulty_run(tmp_path, faults, "logs")

    # Under the error threshold the run completes; what errored is listed, not scored.
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == CASES
    for sample in log.samples:
        fault = faults.get(str(sample.id))
        if fault in OUTAGES:
            cause, calls = OUTAGES[fault]
            assert sample.error is not None and not sample.scores, fault
            assert cause in sample.error.message, sample.error.message
            assert SENTINEL_KEY not in sample.error.message + sample.error.traceback
            if calls == 1:
                assert CALLS[str(sample.id)] == 1, f"{fault} is not worth a retry"
            else:
                assert CALLS[str(sample.id)] >= 2, f"{fault} is retried before it errors"
            continue
        value, answer, explanation, metadata = verdict(sample)
        assert sample.error is None
        if fault in JUDGE_FAILURES:
            assert value["judge_failure"] == 1 and value["agree"] == 0, fault
            assert math.isnan(value["judge_ungrounded"]), fault
            assert answer == "judge failure" and metadata["verdict"] is None
            reason = JUDGE_FAILURES[fault]
            assert reason in str(metadata["failure"]) and reason in explanation, explanation
        else:
            # Inspect's own retry absorbed the transient error: a verdict, read and agreeing.
            assert value["judge_failure"] == 0 and value["agree"] == 1, sample.id
            assert CALLS[str(sample.id)] == (2 if sample.id == recovers else 1)

    # Metrics are over the scored samples: the outages are in none of them.
    scored = CASES - len(OUTAGES)
    m = metrics(log)
    assert m["judge_failure_rate"] == pytest.approx(len(JUDGE_FAILURES) / scored)
    assert m["verdict_accuracy"] == pytest.approx(1 - len(JUDGE_FAILURES) / scored)
    assert m["cohen_kappa"] == 1.0, "failures must not enter the confusion table"
    assert log.results is not None and log.results.completed_samples == scored
    assert log.eval.model_args["faults"] == faults
    assert set(OUTAGES) | set(JUDGE_FAILURES) | {"rate limit, then answers", "interrupt once"} == (
        set(get_args(Fault))
    )


@pytest.mark.slow
def test_eval_retry_judges_exactly_the_errored_samples_and_equals_a_clean_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = write_cases(tmp_path / "cases.jsonl", CASES)
    faults: dict[str, Fault] = dict(zip(ids, [*OUTAGES, *JUDGE_FAILURES], strict=False))
    outages = {case for case, fault in faults.items() if fault in OUTAGES}
    faulty = faulty_run(tmp_path, faults, "logs")
    assert {str(s.id) for s in faulty.samples or [] if s.error} == outages

    # The gate blames no version for the outage: the comparison is incomplete.
    out = tmp_path / "report"
    status = compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"])
    text = (out / "report.md").read_text(encoding="utf-8")
    assert status == 1 and "## Gate: INCOMPLETE" in text
    n = len(outages)
    assert f"{n} of {CASES} cases not judged ({n} errored, 0 never run)" in text
    assert "inspect eval-retry" in text and " breaks syn-" not in text

    monkeypatch.setenv(OUTAGE_OVER, "1")
    before = CALLS.copy()
    (retried,) = eval_retry(faulty.location, log_dir=str(tmp_path / "logs"), display="none")

    assert set(CALLS - before) == outages, "eval-retry must judge the errored samples, only"
    assert retried.status == "success" and retried.samples is not None
    assert not [s for s in retried.samples if s.error]
    clean = faulty_run(tmp_path, faults, "clean")
    assert metrics(retried) == metrics(clean)
    assert {str(s.id): verdict(s)[0] for s in retried.samples} == {
        str(s.id): verdict(s)[0] for s in clean.samples or []
    }
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"]) == 0


@pytest.mark.slow
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
            task_file(),
            task_args={"dataset": str(tmp_path / "cases.jsonl")},
            model=get_model("mockllm/model", custom_outputs=respond),
            log_dir=str(tmp_path / "logs"),
            display="none",
            max_samples=4,
            retry_attempts=0,
            # Each finished sample is in the log when Ctrl-C comes, whatever Inspect's default.
            log_buffer=1,
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


@pytest.mark.slow
def test_stopped_eval_resumes_with_eval_retry(tmp_path: Path) -> None:
    """`inspect eval-retry` on a run stopped by Ctrl-C judges only what the log lacks."""
    ids = write_cases(tmp_path / "cases.jsonl", 12)
    CALLS.clear()
    with pytest.raises(KeyboardInterrupt):
        eval(
            task_file(),
            task_args={"dataset": str(tmp_path / "cases.jsonl")},
            model=get_model("faulty_judge/flaky", faults={ids[7]: "interrupt once"}, memoize=False),
            log_dir=str(tmp_path / "logs"),
            display="none",
            max_samples=1,
            # Each finished sample is in the log when Ctrl-C comes, whatever Inspect's default.
            log_buffer=1,
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


@pytest.mark.slow
def test_a_sample_stopped_by_its_time_limit_is_a_judge_failure(tmp_path: Path) -> None:
    """Inspect ends the sample, not the solver: the judge never replied, and the scorer says so."""
    ids = write_cases(tmp_path / "cases.jsonl", 2)
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(tmp_path / "cases.jsonl")},
        model=get_model("faulty_judge/slow", faults={ids[0]: "timeout"}, memoize=False),
        log_dir=str(tmp_path / "logs"),
        display="none",
        # Room for the healthy sample on a loaded 2-core machine; the slow one waits 60 s.
        time_limit=5,
    )
    assert log.status == "success" and log.samples is not None
    by_id = {str(s.id): verdict(s) for s in log.samples}
    value, _, explanation, metadata = by_id[ids[0]]
    assert value["judge_failure"] == 1 and metadata["failure"] == "no reply from the judge"
    assert explanation.startswith("Judge failure: no reply from the judge.")
    assert by_id[ids[1]][0]["agree"] == 1
