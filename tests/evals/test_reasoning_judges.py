"""A reasoning judge end to end: `eval()` on mockllm, replies shaped as reasoning models send
them, each with a draft verdict in its reasoning."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    Content,
    ContentReasoning,
    ContentText,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    StopReason,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.testing.synthetic_cases import (
    case_id_shown,
    gold_reply,
    synthetic_case,
    write_cases,
)
from tests.support.cli import task_file


def wrong_reply(case_id: str) -> str:
    """The verdict gold does not give for the case."""
    case = synthetic_case(int(case_id.removeprefix("syn-")))
    claims = [] if not case["label"]["grounded"] else [case["answer"]]
    return json.dumps({"grounded": not case["label"]["grounded"], "unsupported_claims": claims})


def output(
    text: str, reasoning: str | None = None, stop_reason: StopReason = "stop"
) -> ModelOutput:
    content: list[Content] = [ContentText(text=text)]
    if reasoning is not None:
        content.insert(0, ContentReasoning(reasoning=reasoning))
    out = ModelOutput.from_content("mockllm/model", content, stop_reason=stop_reason)
    # With usage set, mockllm does not fetch a tokenizer to count tokens (no network here).
    out.usage = ModelUsage(input_tokens=700, output_tokens=400, total_tokens=1100)
    return out


# Case by case, the reply and its outcome (the viewer's column). The first two are issue 17's
# pair, a draft before a lone </think> and then no verdict, which it measured at
# verdict_accuracy 0.5 and judge_failure_rate 0.0.
REPLIES: list[tuple[Callable[[str], ModelOutput], str]] = [
    (lambda c: output(f"draft {gold_reply(c)} … </think>\n\nI cannot decide"), "judge failure"),
    (lambda c: output(f"draft {wrong_reply(c)} … </think>\n\nI cannot decide"), "judge failure"),
    (
        lambda c: output(
            f"```json\n{wrong_reply(c)}\n```\nNo, P1 says .25.\n</think>\n{gold_reply(c)}"
        ),
        "agree",
    ),
    (
        lambda c: output(f"Draft: {gold_reply(c)} Then again, P1", stop_reason="max_tokens"),
        "judge failure",
    ),
    (lambda c: output(gold_reply(c), reasoning=f"Draft: {wrong_reply(c)}. No."), "agree"),
    # What Inspect delivers for a whole <think> block with nothing after it.
    (
        lambda c: output(f"<think>\n{gold_reply(c)}\n</think>", reasoning=gold_reply(c)),
        "judge failure",
    ),
]


def run(tmp_path: Path) -> EvalLog:
    ids = write_cases(tmp_path / "cases.jsonl", len(REPLIES))
    by_case = dict(zip(ids, (reply for reply, _ in REPLIES), strict=True))

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        case_id = case_id_shown(messages)
        return by_case[case_id](case_id)

    (log,) = eval(
        task_file(),
        task_args={"dataset": str(tmp_path / "cases.jsonl")},
        model=get_model("mockllm/model", custom_outputs=respond),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    return log


def test_drafts_in_reasoning_are_never_scored(tmp_path: Path) -> None:
    log = run(tmp_path)

    assert log.status == "success" and log.results is not None and log.samples is not None
    metrics = log.results.scores[0].metrics
    assert metrics["verdict_accuracy"].value == pytest.approx(2 / 6)
    assert metrics["judge_failure_rate"].value == pytest.approx(4 / 6)
    for sample, (_, outcome) in zip(log.samples, REPLIES, strict=True):
        score = (sample.scores or {})["verdict_agreement"]
        assert isinstance(score.value, dict) and score.explanation, sample.id
        assert score.value["outcome"] == outcome, (sample.id, score.explanation)
        # Every reply but the cut-off one showed its reasoning; the viewer says it was set aside.
        if sample.output.stop_reason != "max_tokens":
            assert "set aside." in score.explanation, score.explanation
