"""Entry point for Inspect: makes the task findable by name once the project is installed."""

from evals.judge_groundedness import judge_groundedness

__all__ = ["judge_groundedness"]
