"""The reduction of a case's epochs to one score: Inspect's mean, without its cost at one epoch.

Inspect reduces every sample's score each time it refreshes the live metrics, not only at
the end. Its `mean` reducer runs `statistics.mean` over each key of the score's value even
when a case has a single epoch, and at eight keys a sample that was most of the task's cost
above Inspect's own floor (benchmarks/bench_overhead.py). A single epoch's mean is the
score itself with its numbers as floats, which is what this returns; several epochs go to
Inspect's mean unchanged.
"""

from inspect_ai.scorer import Score, ScoreReducer, mean_score, score_reducer, value_to_float


@score_reducer(name="epoch_mean")
def epoch_mean() -> ScoreReducer:
    """The mean over a case's epochs, as Inspect's `mean` computes it."""
    to_float = value_to_float()
    mean = mean_score(to_float)

    def reduce(scores: list[Score]) -> Score:
        if len(scores) != 1 or not isinstance(value := scores[0].value, dict):
            return mean(scores)
        (score,) = scores
        return Score(
            value={key: to_float(v) for key, v in value.items()},
            answer=score.answer,
            explanation=score.explanation,
            reason=score.reason,
            metadata=score.metadata,
        )

    return reduce
