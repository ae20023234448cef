"""Scripted judges whose every verdict comes with token logprobs: a confidence known per case,
for selective judging's runs through the task, judge-compare and the viewer.

A reply is the verdict JSON, its "grounded" value one token whose alternatives `true` and
`false` carry P(grounded) and P(ungrounded), as a provider returns them (the shape of
tests/support/graded_replies.py); its usage is 700 input and 60 output tokens, so a price file
gives a known cost a call.
"""

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import load_cases
from farejudge.testing.scripted_judge import scripted_judge
from tests.support.cli import task_file
from tests.support.graded_replies import Tok, output_of

Answer = Callable[[Case], tuple[bool, float]]
"""Per case: whether the judge says grounded, and its P(ungrounded)."""

HEAD = '{"grounded": '


def logprob_output(grounded: bool, p_ungrounded: float, claims: list[str]) -> ModelOutput:
    """The verdict with the probabilities of its "grounded" value's two alternatives."""
    value = "true" if grounded else "false"
    text = json.dumps({"grounded": grounded, "unsupported_claims": claims, "reasoning": "scripted"})
    assert text.startswith(HEAD + value)
    alternatives = [("true", math.log(1 - p_ungrounded)), ("false", math.log(p_ungrounded))]
    chosen = alternatives[0][1] if grounded else alternatives[1][1]
    tokens = [Tok(HEAD), Tok(value, chosen, alternatives), Tok(text[len(HEAD) + len(value) :])]
    output = output_of(text, tokens)
    output.usage = ModelUsage(input_tokens=700, output_tokens=60, total_tokens=760)
    return output


def answer_of(case: Case, grounded: bool, p_ungrounded: float) -> ModelOutput:
    """A case answered grounded or not, naming its first sentence as the claim if not."""
    claims = [] if grounded else [case.answer.split(".")[0]]
    return logprob_output(grounded, p_ungrounded, claims)


def run_logprob_judge(
    cases_file: Path,
    answer: Answer,
    log_dir: Path,
    model: str,
    prices: Path | None = None,
    **options: object,
) -> EvalLog:
    """One run of the task file, graded by logprobs, with a judge answering as `answer` says;
    `options` are more task options (`threshold=0.9`). Through the file, as `inspect eval`
    runs it: Inspect makes the task knowing the model it evaluates."""
    cases: Iterable[Case] = load_cases(cases_file)
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(cases_file), "graded": "logprobs", **options},
        model=scripted_judge(cases, lambda case: answer_of(case, *answer(case)), name=model),
        log_dir=str(log_dir),
        display="none",
        model_cost_config=str(prices) if prices else None,
    )
    assert log.status == "success", log.error
    return log
