"""Entry point for Inspect: makes the task and the gguf/ provider findable once installed."""

from evals.judge_groundedness import judge_groundedness
from providers.gguf import gguf

__all__ = ["gguf", "judge_groundedness"]
