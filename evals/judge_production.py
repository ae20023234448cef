"""The production judge: the deployed judge over every answer of a period, for the audit.

inspect eval farejudge/judge_production -T drafts=week/drafts.jsonl -T decision=decision.json

Each draft of `judge-intake`'s file is judged as the gold task judges a case (the same solver,
prompt versions and rendering); the scorer records the verdict, P(ungrounded) where the judge
gives one, and judge failures, with no agreement (there is no gold). `judge-audit estimate`
reads the log with the labels of the period's sample.
"""

from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset

from farejudge.core.errors import InputError
from farejudge.core.shards import check_shard
from farejudge.evals.deployed_judge import (
    DeployedJudge,
    active_model_name,
    check_run_model,
    production_threshold,
    read_decision,
)
from farejudge.evals.fingerprint import sha256
from farejudge.evals.graded_request import graded_generate
from farejudge.evals.judge_call import judge_generate
from farejudge.evals.judge_groundedness import DEFAULT_FAIL_ON_ERROR
from farejudge.evals.production_drafts import draft_samples, load_period, render_draft
from farejudge.evals.prompt_versions import load_prompt_version, manifest_record
from farejudge.evals.retry_policy import retry_config
from farejudge.evals.task_start import check_fail_on_error, check_single, start_task
from farejudge.evals.verdict_schema import check_constrained
from farejudge.scorers.graded_option import GradedOption
from farejudge.scorers.production_scorer import production_verdict
from farejudge.scorers.viewer_columns import production_viewer

# Bump when the scoring or what the log records changes: the audit reads logs of this version.
TASK_VERSION = 1
OPTIONS = (
    "drafts",
    "prompt_version",
    "decision",
    "constrained",
    "fail_on_error",
    "shard",
    "graded",
    "threshold",
)


def _judge(
    decision: str | None, prompt_version: str | None
) -> tuple[DeployedJudge | None, str, str | None]:
    """The decision's judge, if given; the prompt version the run uses; and the model the
    task must name itself: the decision's, unless the run's model is that one already (whose
    `-M` arguments and base URL then stand)."""
    if decision is None:
        return None, prompt_version or "", None
    deployed = read_decision(decision)
    if prompt_version is not None and prompt_version != deployed.version:
        raise InputError(
            [
                f"-T prompt_version={prompt_version}: -T decision={decision} prefers "
                f"{deployed.version}; give one of them"
            ]
        )
    active = active_model_name()
    check_run_model(deployed, active)
    return deployed, deployed.version, None if active == deployed.model else deployed.model


@task
def judge_production(
    drafts: str | None = None,
    prompt_version: str | None = None,
    decision: str | None = None,
    constrained: bool | str | None = None,
    fail_on_error: bool | float = DEFAULT_FAIL_ON_ERROR,
    shard: str | None = None,
    graded: str = "auto",
    threshold: float | None = None,
    **unknown: Any,
) -> Task:
    """Judge every draft of a period (a judge-intake drafts file): verdicts, no agreement.

    Args:
        drafts: The period's drafts file (`judge-intake`'s output), JSON Lines: required.
        prompt_version: A version in prompts/judge_groundedness/manifest.toml (default: the
            decision's, else the manifest's current version).
        decision: A decision.json (`judge-compare`'s): the prompt version and the judge model
            it prefers. The model is the task's own (`Task(model=...)`, which Inspect runs
            over `--model`): a `--model` that contradicts it is an error; a default from
            INSPECT_EVAL_MODEL gives way to it.
        constrained: Ask the judge for the verdict JSON schema, as for judge_groundedness:
            true, json_object or false (default: on for the in-process gguf/ provider only).
        fail_on_error: A draft whose judge could not be reached errors (an outage, never a
            judge failure; `inspect eval-retry` judges it again); the run stops once more
            than this share of drafts errored (true: on the first, false: never).
        shard: i/N, the i-th of N shards of the drafts (0 <= i < N), split by draft id; each
            shard's log records the whole file's population, and the audit joins the shards.
        graded: Where each verdict's P(ungrounded) comes from: logprobs, epochs (the verdict
            itself), off. Default (auto): logprobs on the gguf/ provider, epochs elsewhere.
        threshold: The judge's confidence threshold (judge-compare --alpha calibrates it; a
            decision whose pick is the judge then a person gives its own): each answer is
            marked decided alone or escalated to a person, and `judge-audit sample
            --escalated` labels every escalated answer. Needs a confidence per answer
            (graded=logprobs).
        **unknown: Inspect drops `-T` options a task does not declare; a misspelt option
            would silently run the defaults, so any option not named above is an error.
    """
    start_task("judge_production", OPTIONS, unknown)
    check_single({"drafts": drafts, "prompt_version": prompt_version})
    if drafts is None:
        raise InputError(["-T drafts=PATH: give the period's drafts file (judge-intake's output)"])
    if decision is not None and not isinstance(decision, str):
        raise InputError([f"-T decision={decision!r}: give one decision.json"])
    check_fail_on_error(fail_on_error)
    schema = check_constrained(constrained)
    graded_option = GradedOption.given(graded, "-T")
    chosen = check_shard(shard)
    deployed, version_name, model = _judge(decision, prompt_version)
    version = load_prompt_version(version_name or None)
    held_to = production_threshold(threshold, deployed, graded_option, version.name, model)
    period = load_period(drafts, chosen)
    return Task(
        dataset=MemoryDataset(
            draft_samples(period.drafts, version),
            name=Path(drafts).stem,
            location=str(drafts),
        ),
        solver=[
            render_draft(version.name),
            graded_generate(judge_generate(schema, model), graded_option),
        ],
        config=retry_config(),
        # The threshold passed only where given: Inspect records a scorer's arguments as given.
        scorer=production_verdict(
            graded_option, **({} if held_to is None else {"threshold": held_to})
        ),
        # Each epoch's verdict is its own row, as in the gold task; the audit averages them.
        epochs=Epochs(1, []),
        model=model,
        viewer=production_viewer(held_to is not None),
        fail_on_error=fail_on_error,
        version=TASK_VERSION,
        metadata={
            "prompt_version": version.name,
            "prompt_date": version.date.isoformat() if version.date else None,
            "prompt_sha256": sha256(version.instructions),
            "render_contract": version.render.model_dump(),
            "manifest": manifest_record(),
            "constrained": "auto" if schema is None else schema,
            "shard": None if chosen is None else str(chosen),
            "graded": graded_option,
            "threshold": held_to,
            "drafts": period.file.name,
            # The period's population, whole whatever the shard: the audit's sample must have
            # been drawn from exactly these drafts.
            "population": period.population,
            "population_sha256": period.population_sha256,
            "categories": period.categories,
            "decision": None
            if deployed is None
            else {"file": deployed.decision, "version": deployed.version, "model": deployed.model},
        },
    )
