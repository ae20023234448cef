"""The judge_groundedness meta-eval: run a judge over gold-labelled fare-policy cases.

inspect eval evals/judge_groundedness.py -T prompt_version=v2 --model openai/gpt-4o-mini
"""

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.solver import Generate, Solver, TaskState, solver

from evals.case_schema import Case
from evals.dataset import DEFAULT_CASES, judge_dataset
from evals.errors import InputError
from evals.judge_call import judge_generate
from evals.prompt_versions import PromptVersion, load_prompt_version
from evals.render import judge_messages
from scorers.review import REVIEW_VIEWER, review
from scorers.verdict_scorer import verdict_agreement


@solver
def render_for_judge(version: PromptVersion) -> Solver:
    """Replace the sample's input with the judge prompt, rendered under the version's contract."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = judge_messages(Case.model_validate(state.metadata), version)
        return state

    return solve


@task
def judge_groundedness(
    prompt_version: str = "v3",
    dataset: str = str(DEFAULT_CASES),
    constrained: bool | None = None,
    **unknown: Any,
) -> Task:
    """Judge every case with one prompt version and score the verdicts against gold.

    Args:
        prompt_version: A version in prompts/judge_groundedness/manifest.toml.
        dataset: A JSON Lines case file, or a folder of them.
        constrained: Ask the judge for the verdict JSON schema (constrained decoding where the
            provider supports it). Default: on for the in-process gguf/ provider, off otherwise.
        **unknown: Inspect drops `-T` options a task does not declare; a misspelt option
            would silently run the defaults, so any option not named above is an error.
    """
    if unknown:
        raise InputError(
            [f"-T {name}: not an option of judge_groundedness" for name in unknown]
            + ["options: prompt_version, dataset, constrained"]
        )
    # `-T prompt_version=v1,v2` arrives as a list: one task runs one version (judge-matrix
    # runs several).
    for name, value in (("prompt_version", prompt_version), ("dataset", dataset)):
        if not isinstance(value, str):
            raise InputError([f"-T {name}={value!r}: give one {name}, not a list"])
    version = load_prompt_version(prompt_version)
    return Task(
        dataset=judge_dataset(Path(dataset)),
        solver=[render_for_judge(version), judge_generate(constrained)],
        # review restates verdict_agreement's score, so it runs second.
        scorer=[verdict_agreement(), review()],
        viewer=REVIEW_VIEWER,
        metadata={
            "prompt_version": version.name,
            "prompt_date": version.date.isoformat() if version.date else None,
            "prompt_changed": version.changed,
            "motivating_cases": version.motivating_cases,
            "render_contract": version.render.model_dump(),
            "constrained": "auto" if constrained is None else constrained,
        },
    )
