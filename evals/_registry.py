"""Entry point for Inspect: makes the task and the gguf/ provider findable once installed."""

from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.providers.gguf import gguf

__all__ = ["gguf", "judge_groundedness"]
