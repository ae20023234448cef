"""Scripted judge runs: each case answered right, wrong, with no verdict, or flakily.

A script says, per case, how the judge does on it: "right" echoes gold, "wrong" says the
opposite, "failure" replies with no verdict, "flaky" alternates wrong and right between
calls. Cases not in the script are answered right.
"""

import itertools
from collections.abc import Callable, Mapping
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.scripted_judge import echo_gold, invert_gold, scripted_judge

Script = Mapping[str, str]


def replies(script: Script) -> Callable[[Case], str]:
    flaky = {case: itertools.cycle([False, True]) for case, how in script.items() if how == "flaky"}

    def reply(case: Case) -> str:
        how = script.get(case.id, "right")
        if how == "failure":
            return "I cannot decide."
        if how == "flaky":
            how = "right" if next(flaky[case.id]) else "wrong"
        return echo_gold(case) if how == "right" else invert_gold(case)

    return reply


def run_version(
    version: str,
    script: Script,
    cases_file: Path,
    log_dir: Path,
    model: str = "mockllm/model",
    epochs: int = 1,
) -> EvalLog:
    cases = load_cases(cases_file)
    (log,) = eval(
        judge_groundedness(prompt_version=version, dataset=str(cases_file)),
        model=scripted_judge(cases, replies(script), name=model),
        log_dir=str(log_dir),
        epochs=epochs,
        display="none",
    )
    assert log.status == "success", log.error
    return log
