"""End to end: `eval()` of the task on mockllm, for every prompt version."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.testing.scripted_judge import echo_gold, invert_gold, scripted_judge
from tests.support.cli import task_file

CASES = load_cases(DEFAULT_CASES)


def run(version: str, reply: Callable[[Case], str], log_dir: Path) -> EvalLog:
    (log,) = eval(
        task_file(),
        task_args={"prompt_version": version},
        model=scripted_judge(CASES, reply),
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    (scores,) = log.results.scores
    return {name: m.value for name, m in scores.metrics.items()}


@pytest.mark.parametrize("version", ["v1", "v2", "v3"])
@pytest.mark.slow
def test_echoing_gold_scores_perfectly(version: str, tmp_path: Path) -> None:
    log = run(version, echo_gold, tmp_path)
    m = metrics(log)
    assert m["verdict_accuracy"] == 1.0
    assert m["cohen_kappa"] == 1.0
    assert m["balanced_accuracy"] == 1.0
    assert m["judge_failure_rate"] == 0.0
    assert m["claim_precision"] == 1.0 and m["claim_recall"] == 1.0
    assert m["span_precision"] == m["span_recall"] == m["span_f1"] == 1.0
    categories = {c.category for c in CASES}
    assert {k for k in m if k.startswith("category:")} == {f"category:{c}" for c in categories}
    assert log.eval.metadata is not None and log.eval.metadata["prompt_version"] == version

    # The log shows what the judge saw, rendered as this version's contract says.
    assert log.samples is not None and len(log.samples) == len(CASES)
    contract = load_prompt_version(version).render
    for sample in log.samples:
        system, user = sample.messages[0], sample.messages[1]
        assert system.text == load_prompt_version(version).instructions
        passages = user.text.split("<retrieved_passages>")[1].split("</retrieved_passages>")[0]
        assert ("\n(source: https://" in passages) == contract.passage_provenance
        if sample.id == "conv-004":
            assert ("<prior_conversation_turns>" in user.text) == contract.prior_turns
        score = sample.scores["verdict_agreement"]  # type: ignore[index]
        assert score.explanation and score.explanation.startswith("Agree:")


@pytest.mark.slow
def test_inverting_gold_scores_zero(tmp_path: Path) -> None:
    m = metrics(run("v3", invert_gold, tmp_path))
    assert m["verdict_accuracy"] == 0.0
    assert m["cohen_kappa"] < 0
    assert m["recall"] == 0.0
    assert m["judge_failure_rate"] == 0.0


def quote_whole_answer(case: Case) -> str:
    """A lazy judge: the right verdict, with the whole answer quoted as its one claim."""
    if case.label.grounded:
        return echo_gold(case)
    return json.dumps({"grounded": False, "unsupported_claims": [case.answer]})


@pytest.mark.slow
def test_quoting_whole_answers_loses_span_precision_not_claim_precision(tmp_path: Path) -> None:
    lazy = metrics(run("v3", quote_whole_answer, tmp_path / "lazy"))
    exact = metrics(run("v3", echo_gold, tmp_path / "exact"))
    # The whole answer contains each case's gold claim, so claim matching cannot tell them apart.
    assert lazy["claim_precision"] >= exact["claim_precision"]
    assert lazy["span_precision"] < exact["span_precision"] == 1.0
    assert lazy["span_recall"] == exact["span_recall"] == 1.0
    assert lazy["span_f1"] < exact["span_f1"] == 1.0


@pytest.mark.slow
def test_unparseable_replies_are_judge_failures(tmp_path: Path) -> None:
    broken = {c.id for c in CASES[::3]}

    def reply(case: Case) -> str:
        return "I think it is grounded." if case.id in broken else echo_gold(case)

    log = run("v2", reply, tmp_path)
    m = metrics(log)
    assert m["judge_failure_rate"] == pytest.approx(len(broken) / len(CASES))
    assert m["verdict_accuracy"] == pytest.approx(1 - len(broken) / len(CASES))
    # Over the cases that have a verdict, the judge agrees perfectly.
    assert m["cohen_kappa"] == 1.0
    assert log.samples is not None
    failed = {s.id for s in log.samples if s.scores["verdict_agreement"].answer == "judge failure"}  # type: ignore[index]
    assert failed == broken


def test_unknown_version_fails_before_any_model_call(tmp_path: Path) -> None:
    calls: list[str] = []

    def reply(case: Case) -> str:
        calls.append(case.id)
        return echo_gold(case)

    with pytest.raises(Exception, match="valid versions: v1, v2, v3"):
        eval(
            task_file(),
            task_args={"prompt_version": "v7"},
            model=scripted_judge(CASES, reply),
            log_dir=str(tmp_path),
            display="none",
        )
    assert calls == []
