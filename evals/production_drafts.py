"""A period's drafts (`judge-intake`'s file) → the production task's samples.

The whole file is the period's population: every draft is read and checked, and its id and
content hash go into the population hash the audit's sample is drawn against
(`farejudge.core.population`). Only the drafts of the run's shard become samples.

A sample's input is the rider's question, and the draft rides in its metadata: `render_draft`
renders the judge's messages from it as the sample starts, with the gold task's rendering, so
the judge sees exactly what the gold task would show it. Inspect keeps each sample's input in
its summaries (up to 5,120 characters a message), which the viewer's sample list and the audit
read for every sample: with the rendered prompt there, a period of a million answers had 4 GB
of summaries to read. The prompt is in each sample's transcript all the same.
"""

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, Solver, TaskState, solver

from farejudge.core.drafts import DRAFT_FIELDS, Draft, iter_drafts
from farejudge.core.errors import InputError
from farejudge.core.population import population_hash
from farejudge.core.shards import Shard
from farejudge.core.text_input import shown
from farejudge.evals.dataset import locate
from farejudge.evals.prompt_versions import PromptVersion, load_prompt_version
from farejudge.evals.render import judge_messages
from farejudge.evals.sample_order import prompt_text, shared_prefix_order

DRAFT = "draft"
"""The key of a sample's metadata that holds its draft's content."""
KEPT = ("category", "content_sha256", "source")
"""The draft's other fields, each a metadata key of its own: what a reader of the log (the
audit, the viewer) groups by and checks."""


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


def _prompt(draft: Draft, version: PromptVersion) -> str:
    return prompt_text(Sample(input=judge_messages(draft, version)))


def draft_samples(drafts: list[Draft], version: PromptVersion) -> list[Sample]:
    """Each draft as a sample (no target: there is no gold), in the order that lets a local
    judge reuse the most of each prompt under `version` (`sample_order.py`)."""
    ordered = shared_prefix_order(drafts, lambda draft: _prompt(draft, version))
    return [
        Sample(
            id=draft.id,
            input=draft.question,
            metadata={
                **{key: getattr(draft, key) for key in KEPT},
                DRAFT: draft.model_dump(mode="json", include=set(DRAFT_FIELDS)),
            },
        )
        for draft in ordered
    ]


def sample_draft(state: TaskState) -> Draft:
    """The draft a sample of the production task holds."""
    metadata = state.metadata
    return Draft.model_validate(
        {
            "id": str(state.sample_id),
            **{key: metadata[key] for key in KEPT},
            **metadata[DRAFT],
        }
    )


@solver
def render_draft(prompt_version: str) -> Solver:
    """The judge's messages for the sample's draft, rendered under `prompt_version` as the gold
    task renders a case, in place of its input (the rider's question)."""
    version = load_prompt_version(prompt_version)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.messages = judge_messages(sample_draft(state), version)
        return state

    return solve
