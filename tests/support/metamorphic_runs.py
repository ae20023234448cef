"""The metamorphic suite judged end to end by a scripted judge with one blind spot, or none.

Shared by the suite's own tests and the viewer's browser test, which looks at such a log.
"""

import json
from collections.abc import Callable
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.case_schema import Verdict
from farejudge.core.sample_case import GoldTarget
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples
from farejudge.testing.scripted_judge import mock_output
from tests.support.cli import task_file

# Multi-turn and provenance cases: every relation applies to some of them.
CASE_FILES = ["conv.jsonl", "provenance.jsonl"]

# How a judge with one blind spot answers the cases of one relation: it says grounded.
Blind = Callable[[str | None], bool]


def write_cases(path: Path) -> Path:
    lines = [
        line
        for name in CASE_FILES
        for line in (DEFAULT_CASES / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(tmp_path: Path, blind_to: str | None, version: str = "v3") -> EvalLog:
    """The suite, judged by gold except on `blind_to`'s cases, which it calls grounded."""
    cases_file = write_cases(tmp_path / "cases.jsonl")
    samples, _ = suite_samples(load_cases(cases_file), "metamorphic", load_prompt_version(version))
    by_prompt = {
        sample.input[-1].text: sample  # type: ignore[union-attr]
        for sample in samples
    }

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        sample = by_prompt[messages[-1].text]
        gold = GoldTarget.model_validate_json(str(sample.target)).label
        if sample.metadata and sample.metadata["relation"] == blind_to:
            gold = Verdict(grounded=True, unsupported_claims=[])
        return mock_output(json.dumps({**gold.model_dump(), "reasoning": "scripted"}))

    (log,) = eval(
        task_file(),
        task_args={"dataset": str(cases_file), "suite": "metamorphic", "prompt_version": version},
        model=get_model("mockllm/model", custom_outputs=respond, memoize=False),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log
