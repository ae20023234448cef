"""Compare judge_groundedness runs across prompt versions, judge models and epochs."""
