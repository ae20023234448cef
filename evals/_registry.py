"""Entry point for Inspect: makes the tasks and the gguf/ provider findable once installed."""

from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.judge_production import judge_production
from farejudge.providers.gguf import gguf

__all__ = ["gguf", "judge_groundedness", "judge_production"]
