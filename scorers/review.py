"""What a reviewer sorts and filters by in the log viewer: category, gold, verdict, outcome.

These are strings, so they live in a scorer of their own with no metrics: Inspect then
reduces nothing over epochs, whereas its default mean reducer would turn every string in
`verdict_agreement`'s value into 0.0 with a warning per sample.
"""

from typing import Literal

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from inspect_ai.viewer import (
    TaskSamplesColumn,
    TaskSamplesSort,
    TaskSamplesView,
    ViewerConfig,
)

VERDICT_SCORER = "verdict_agreement"
REVIEW_SCORER = "review"

Role = Literal["good", "bad", "warn", "info", "muted"]

OUTCOME_ROLES: dict[str, Role] = {
    "agree": "good",
    "false alarm": "bad",
    "missed": "bad",
    "judge failure": "warn",
}

OUTCOME_MEANING = {
    "agree": "the judge's verdict is gold's",
    "false alarm": "the judge called a grounded answer ungrounded",
    "missed": "the judge called an ungrounded answer grounded",
    "judge failure": "the judge gave no readable verdict, which counts as a wrong one",
}


def outcome(value: dict[str, float]) -> str:
    """The verdict-level outcome in plain words; "ungrounded" is the positive class."""
    if value["judge_failure"]:
        return "judge failure"
    if value["agree"]:
        return "agree"
    return "missed" if value["gold_ungrounded"] else "false alarm"


@scorer(metrics=[])
def review() -> Scorer:
    """Restates the verdict_agreement score as words; must run after it."""

    async def score(state: TaskState, target: Target) -> Score:
        verdict = (state.scores or {}).get(VERDICT_SCORER)
        if verdict is None or not isinstance(verdict.value, dict):
            raise ValueError(f"the {REVIEW_SCORER} scorer must follow {VERDICT_SCORER}")
        value = {k: float(v) for k, v in verdict.value.items() if isinstance(v, int | float)}
        said = outcome(value)
        # A derived case says where it came from (the metamorphic suite's columns).
        derived = "derived_from" in state.metadata
        derivation = {key: str(state.metadata[key]) for key in DERIVATION} if derived else {}
        return Score(
            value={
                "category": str(state.metadata["category"]),
                "gold": "ungrounded" if value["gold_ungrounded"] else "grounded",
                "verdict": verdict.answer or "",
                "outcome": said,
                # The input is the rendered prompt, instructions first: the question reads better.
                "question": str(state.metadata["question"]),
                **derivation,
            },
            explanation=f"{said.capitalize()}: {OUTCOME_MEANING[said]}.",
        )

    return score


DERIVATION = ("relation", "derived_from")
"""Metadata of a metamorphic sample the viewer shows as columns."""


def _column(key: str) -> TaskSamplesColumn:
    return TaskSamplesColumn.score(REVIEW_SCORER, key)


def _viewer(name: str, derivation: tuple[str, ...]) -> ViewerConfig:
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name=name,
            columns=[
                TaskSamplesColumn(id="sampleStatus"),
                TaskSamplesColumn(id="sampleId"),
                TaskSamplesColumn(id="epoch"),
                *[_column(key) for key in derivation],
                _column("category"),
                _column("gold"),
                _column("verdict"),
                _column("outcome"),
                _column("question"),
                TaskSamplesColumn(id="input", visible=False),
                # The gold JSON and the verdict label, already shown above in words.
                TaskSamplesColumn(id="target", visible=False),
                TaskSamplesColumn(id="answer", visible=False),
            ],
            # Alphabetically descending, disagreements ("missed", "judge failure", "false alarm")
            # come before "agree".
            sort=[
                TaskSamplesSort.score(REVIEW_SCORER, "outcome", dir="desc"),
                TaskSamplesSort(column="sampleId"),
            ],
            multiline=False,
            # The viewer sizes a score column by its label: these are long enough for the values.
            score_labels={
                "category": "Case category",
                "gold": "Gold verdict",
                "verdict": "Judge verdict",
                "outcome": "Outcome vs gold",
                "question": "Rider's question",
                "relation": "Relation",
                "derived_from": "Derived from",
            },
            score_color_scales={"outcome": OUTCOME_ROLES},
            color_scales_enabled=True,
        )
    )


REVIEW_VIEWER = _viewer("Gold vs judge", ())
METAMORPHIC_VIEWER = _viewer("Metamorphic suite: gold vs judge", DERIVATION)
