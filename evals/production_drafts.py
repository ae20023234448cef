"""A period's drafts (`judge-intake`'s file) → the production task's samples.

The whole file is the period's population: every draft is read and checked, and its id and
content hash go into the population hash the audit's sample is drawn against
(`farejudge.core.population`). Only the drafts of the run's shard are rendered, so a shard
of a million drafts holds its own prompts alone.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.dataset import Sample

from farejudge.core.drafts import Draft, iter_drafts
from farejudge.core.errors import InputError
from farejudge.core.population import population_hash
from farejudge.core.shards import Shard
from farejudge.core.text_input import shown
from farejudge.evals.dataset import locate
from farejudge.evals.prompt_versions import PromptVersion
from farejudge.evals.render import judge_messages
from farejudge.evals.sample_order import prompt_text, shared_prefix_order


@dataclass(frozen=True)
class Period:
    """The drafts a run judges, and the population they are drawn from."""

    file: Path
    drafts: list[Draft]
    """The run's shard of the drafts (every draft, unsharded), in the file's order."""
    population: int
    """Drafts in the whole file."""
    population_sha256: str
    categories: dict[str, int]
    """Drafts in the whole file by category."""


def load_period(path: str, shard: Shard | None) -> Period:
    """The drafts file at `path` read and checked whole, or an InputError naming every problem,
    one a line; only `shard`'s drafts kept."""
    file = locate(path)
    if not file.is_file():
        raise InputError([f"-T drafts={path}: no such drafts file ({shown(file)})"])
    problems: list[str] = []
    population: dict[str, str] = {}
    categories: Counter[str] = Counter()
    kept = []
    for draft in iter_drafts(file, problems.append):
        population[draft.id] = draft.content_sha256
        categories[draft.category] += 1
        if shard is None or shard.holds_family(draft.id):
            kept.append(draft)
    if problems:
        raise InputError(problems)
    return Period(
        file=file,
        drafts=kept,
        population=len(population),
        population_sha256=population_hash(population),
        categories=dict(sorted(categories.items())),
    )


def draft_samples(drafts: list[Draft], version: PromptVersion) -> list[Sample]:
    """Each draft as the judge sees it under `version`, in the order that lets a local judge
    reuse the most of each prompt (`sample_order.py`). No target: there is no gold."""
    samples = [
        Sample(
            id=draft.id,
            input=judge_messages(draft, version),
            metadata={
                "category": draft.category,
                # What a label of the draft must name (`judge-audit estimate` checks it).
                "content_sha256": draft.content_sha256,
                "source": draft.source,
            },
        )
        for draft in drafts
    ]
    return shared_prefix_order(samples, prompt_text)
