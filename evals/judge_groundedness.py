"""The judge_groundedness meta-eval: run a judge over gold-labelled fare-policy cases.

inspect eval evals/judge_groundedness.py -T prompt_version=v2 --model openai/gpt-4o-mini
"""

from pathlib import Path
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset

from farejudge.core.shards import check_shard, shard_samples
from farejudge.evals.dataset import DEFAULT_CASES, load_cases, named_dataset
from farejudge.evals.deployed_judge import run_threshold
from farejudge.evals.fingerprint import case_set_hash, sha256
from farejudge.evals.graded_request import graded_generate
from farejudge.evals.judge_call import judge_generate
from farejudge.evals.prompt_versions import load_prompt_version, manifest_record
from farejudge.evals.retry_policy import retry_config
from farejudge.evals.suite import check_suite, check_suite_families, suite_samples
from farejudge.evals.task_start import check_fail_on_error, check_single, start_task
from farejudge.evals.verdict_schema import check_constrained
from farejudge.scorers.graded_option import GradedOption
from farejudge.scorers.verdict_scorer import verdict_agreement
from farejudge.scorers.viewer_columns import task_viewer

# Bump when the scoring or the case schema changes: logs of different task versions do not
# measure the same thing.
TASK_VERSION = 3
OPTIONS = (
    "prompt_version",
    "dataset",
    "constrained",
    "fail_on_error",
    "suite",
    "families",
    "shard",
    "graded",
    "threshold",
    "decision",
)
# The share of samples that may error (an outage, not a verdict) before the run stops.
DEFAULT_FAIL_ON_ERROR = 0.1


@task
def judge_groundedness(
    prompt_version: str | None = None,
    dataset: str = str(DEFAULT_CASES),
    constrained: bool | str | None = None,
    fail_on_error: bool | float = DEFAULT_FAIL_ON_ERROR,
    suite: str = "gold",
    families: str | list[str] | None = None,
    shard: str | None = None,
    graded: str = "auto",
    threshold: float | None = None,
    decision: str | None = None,
    **unknown: Any,
) -> Task:
    """Judge every case with one prompt version and score the verdicts against gold.

    Args:
        prompt_version: A version in prompts/judge_groundedness/manifest.toml (default: the
            manifest's current version).
        dataset: A JSON Lines case file, or a folder of them; or contested, the contested
            set's settled cases (datasets/contested), kept apart from the gold set.
        constrained: Ask the judge for the verdict JSON schema: true as the provider's
            structured-output request, json_object inside an OpenAI json_object response
            format (llama-cpp-python's server), false not at all. Default: on for the
            in-process gguf/ provider, off otherwise.
        fail_on_error: A sample whose judge could not be reached errors (it is not scored,
            and `inspect eval-retry` judges it again); the run stops once more than this
            share of samples errored (true: on the first, false: never).
        suite: gold, the cases as they are; or metamorphic, each case beside the cases its
            metamorphic relations derive from it, gold known by construction; or
            adversarial, each case beside its attacked cases (docs/adversarial.md), which keep
            its gold.
        families: With suite=adversarial, the attack families to derive (a,b; default: all).
        shard: i/N, the i-th of N shards of the cases (0 <= i < N), split by case id; the
            log records the whole case set, so judge-compare joins the shards into one run.
        graded: Where each sample's graded score, P(ungrounded), comes from: logprobs, the
            judge's token probabilities (asked of the provider); epochs, the verdict itself
            (1 or 0; its mean over epochs grades a case); off, none. Default (auto):
            logprobs on the in-process gguf/ provider, epochs elsewhere.
        threshold: A confidence threshold calibrated by judge-compare (--alpha): each
            sample is marked decided alone (its verdict's confidence from the judge's token
            probabilities at or above it) or escalated to a person. Needs graded scores from
            logprobs.
        decision: A judge-compare decision.json: the threshold the judge it prefers (the
            judge to deploy) holds this version and model to, in place of `threshold`.
        **unknown: Inspect drops `-T` options a task does not declare; a misspelt option
            would silently run the defaults, so any option not named above is an error.
    """
    start_task("judge_groundedness", OPTIONS, unknown)
    check_single({"prompt_version": prompt_version, "dataset": dataset})
    check_fail_on_error(fail_on_error)
    schema = check_constrained(constrained)
    graded_option = GradedOption.given(graded, "-T")
    suite = check_suite(suite)
    chosen_families = check_suite_families(suite, families)
    version = load_prompt_version(prompt_version)
    held_to = run_threshold(threshold, decision, graded_option, version.name)
    location = named_dataset(dataset)
    cases = load_cases(location)
    chosen = check_shard(shard)
    samples, hashes = suite_samples(cases, suite, version, chosen_families)
    samples = shard_samples(samples, chosen)
    return Task(
        dataset=MemoryDataset(samples, name=Path(dataset).stem, location=str(location)),
        solver=graded_generate(judge_generate(schema), graded_option),
        # Bounded retries, so that an outage errors samples and fail_on_error can stop the
        # run; --max-retries and --timeout override them.
        config=retry_config(),
        # The threshold passed only where given: Inspect records a scorer's arguments as given.
        scorer=verdict_agreement(graded_option)
        if held_to is None
        else verdict_agreement(graded_option, held_to),
        # No reduction over epochs: the metrics count every case-epoch (for their ratios the
        # same as each case adding the share of its epochs), the value's strings stay
        # strings, and the live metrics skip re-reducing every sample at each refresh.
        epochs=Epochs(1, []),
        viewer=task_viewer(suite, held_to is not None),
        fail_on_error=fail_on_error,
        version=TASK_VERSION,
        metadata={
            "prompt_version": version.name,
            "prompt_date": version.date.isoformat() if version.date else None,
            "prompt_changed": version.changed,
            "prompt_sha256": sha256(version.instructions),
            "motivating_cases": version.motivating_cases,
            "render_contract": version.render.model_dump(),
            "manifest": manifest_record(),
            "constrained": "auto" if schema is None else schema,
            "suite": suite,
            **({} if chosen_families is None else {"families": list(chosen_families)}),
            "shard": None if chosen is None else str(chosen),
            "graded": graded_option,
            **({} if held_to is None else {"threshold": held_to}),
            "case_set_sha256": case_set_hash(hashes),
            "case_sha256": hashes,
        },
    )
