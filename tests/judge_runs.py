"""Logs of scripted judge runs, for testing and timing the comparison.

A script says, per case, how the judge does on it: "right" echoes gold, "wrong" says the
opposite, "failure" replies with no verdict, "flaky" alternates wrong and right between
calls. Cases not in the script are answered right.
"""

import itertools
import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog

from evals.case_schema import Case
from evals.dataset import DEFAULT_CASES, load_cases
from evals.judge_groundedness import judge_groundedness
from tests.scripted_judge import echo_gold, invert_gold, scripted_judge

FIXTURE_CASES = Path(__file__).parent / "fixtures" / "cases.jsonl"
PINNED = ["conv-004", "fresh-001"]
"""The motivating cases of v2 and v3 in the prompt manifest."""

Script = Mapping[str, str]


def write_cases(path: Path, extra_ids: Iterable[str] = PINNED) -> Path:
    """The test fixture cases plus named gold cases, as one JSON Lines file."""
    wanted = set(extra_ids)
    lines = FIXTURE_CASES.read_text(encoding="utf-8").splitlines()
    for case_file in sorted(DEFAULT_CASES.glob("*.jsonl")):
        lines += [
            line
            for line in case_file.read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line)["id"] in wanted
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


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
