"""What a reviewer sorts and filters by in the log viewer: category, gold, verdict, outcome.

They are strings in the verdict scorer's value, beside the numbers its metrics read, so the
viewer's sample list can show them as columns. The task reduces nothing over epochs (a mean
would turn each string into 0.0), so they stay as written.
"""

from collections.abc import Mapping
from typing import Any, Literal

from inspect_ai.viewer import (
    TaskSamplesColumn,
    TaskSamplesSort,
    TaskSamplesView,
    ViewerConfig,
)

from farejudge.scorers.metrics import Counts

VERDICT_SCORER = "verdict_agreement"

Role = Literal["good", "bad", "warn", "info", "muted"]

OUTCOME_ROLES: dict[str, Role] = {
    "agree": "good",
    "false alarm": "bad",
    "missed": "bad",
    "judge failure": "warn",
}


def outcome(value: Mapping[str, float]) -> str:
    """The verdict-level outcome in plain words; "ungrounded" is the positive class."""
    if value["judge_failure"]:
        return "judge failure"
    if value["agree"]:
        return "agree"
    return "missed" if value["gold_ungrounded"] else "false alarm"


# What a reader needs of P(ungrounded) in the sample list. The score's `p_ungrounded` keeps
# the exact value: judge-compare ranks and calibrates on it, and rounding would tie cases.
SHOWN_DECIMALS = 2


def review_fields(
    value: Mapping[str, float], verdict: str, metadata: Mapping[str, Any], question: str
) -> dict[str, str | float]:
    """The sample-list columns of one scored case: `value` is the verdict scorer's numbers,
    `verdict` its answer, `metadata` the sample's, `question` the rider's."""
    said = outcome(value)
    # A derived case says where it came from (the metamorphic suite's columns); an attacked
    # one its family and the verdict it argues for too (the adversarial suite's).
    shown = [
        key for key in (*DERIVATION, *ATTACK) if key in metadata and "derived_from" in metadata
    ]
    return {
        "category": str(metadata["category"]),
        "gold": "ungrounded" if value["gold_ungrounded"] else "grounded",
        "verdict": verdict,
        "outcome": said,
        # A number still, so that the column sorts and filters as one (NaN where none).
        "p_shown": round(value["p_ungrounded"], SHOWN_DECIMALS),
        # The input is the rendered prompt, instructions first: the question reads better. On
        # one line (the prompt keeps its line breaks).
        "question": " ".join(question.split()),
        **{key: str(metadata[key]) for key in shown},
    }


DERIVATION = ("relation", "derived_from")
"""Metadata of a metamorphic sample the viewer shows as columns."""
ATTACK = ("family", "direction")
"""Metadata of an attacked sample (the adversarial suite) shown as columns beside its parent."""
SUITE_COLUMNS = {"gold": (), "metamorphic": DERIVATION, "adversarial": (*ATTACK, "derived_from")}
"""Each suite's derivation columns, first in its sample list."""
SUITE_TITLES = {
    "gold": "Gold vs judge",
    "metamorphic": "Metamorphic suite: gold vs judge",
    "adversarial": "Adversarial suite: gold vs judge, by attack family",
}

ESCALATION_ROLES: dict[str, Role] = {"decided": "good", "escalated": "warn"}
ESCALATION_LABELS = {
    "escalation": "Decided or escalated",
    "confidence_shown": "Confidence of verdict",
    "confidence": "Confidence of verdict, exact",
}


def _column(key: str, visible: bool = True, scorer: str = VERDICT_SCORER) -> TaskSamplesColumn:
    return TaskSamplesColumn.score(scorer, key, visible=visible)


def _held(escalation: bool, scorer: str) -> list[TaskSamplesColumn]:
    """A run held to a threshold: whether each sample was decided alone, and its confidence,
    as shown and exact; none for a run held to none."""
    if not escalation:
        return []
    return [
        _column("escalation", scorer=scorer),
        _column("confidence_shown", False, scorer),
        _column("confidence", False, scorer),
    ]


def _viewer(name: str, derivation: tuple[str, ...], escalation: bool) -> ViewerConfig:
    held = _held(escalation, VERDICT_SCORER)
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
                *held,
                # The judge's graded score (scorers/graded.py), rounded; NaN where it has none.
                _column("p_shown"),
                _column("question"),
                TaskSamplesColumn(id="input", visible=False),
                # The gold JSON and the verdict label, already shown above in words.
                TaskSamplesColumn(id="target", visible=False),
                TaskSamplesColumn(id="answer", visible=False),
                # The numbers the metrics read, last. Inspect's viewer (0.3.285) still shows
                # every key of a score until the reader unticks it under Columns.
                *[_column(key, visible=False) for key in Counts.__annotations__],
                _column("p_ungrounded", visible=False),
                _column("graded_source", visible=False),
            ],
            # Alphabetically descending, disagreements ("missed", "judge failure", "false alarm")
            # come before "agree".
            sort=[
                TaskSamplesSort.score(VERDICT_SCORER, "outcome", dir="desc"),
                TaskSamplesSort(column="sampleId"),
            ],
            multiline=False,
            # The viewer sizes a score column by its label: these are long enough for the values.
            score_labels={
                "category": "Case category",
                "gold": "Gold verdict",
                "verdict": "Judge verdict",
                "outcome": "Outcome vs gold",
                "p_shown": "P(ungrounded)",
                "p_ungrounded": "P(ungrounded), exact",
                "question": "Rider's question",
                "relation": "Relation",
                "derived_from": "Derived from",
                "family": "Attack family",
                "direction": "Attack pushes",
                **(ESCALATION_LABELS if escalation else {}),
            },
            score_color_scales={
                "outcome": OUTCOME_ROLES,
                **({"escalation": ESCALATION_ROLES} if escalation else {}),
            },
            color_scales_enabled=True,
        )
    )


def task_viewer(suite: str, escalation: bool) -> ViewerConfig:
    """The sample list of a run of `suite`: the metamorphic suite's (each derived case's
    relation and parent), the adversarial suite's (each attacked case's family, the verdict
    it pushes towards and its parent) or the cases as written; held to a confidence threshold
    or not."""
    return _viewer(SUITE_TITLES[suite], SUITE_COLUMNS[suite], escalation)


PRODUCTION_SCORER = "production_verdict"
VERDICT_ROLES: dict[str, Role] = {
    "ungrounded": "bad",
    "grounded": "good",
    "judge failure": "warn",
}
"""The production judge's verdicts, coloured as what they say of the assistant's answer."""


def _production(key: str, visible: bool = True) -> TaskSamplesColumn:
    return _column(key, visible, PRODUCTION_SCORER)


# The production task's sample list (`farejudge/judge_production`): no gold, so no outcome;
# the judge's verdict, coloured, and what a reviewer reads it by.
def production_viewer(escalation: bool) -> ViewerConfig:
    """The production task's sample list; held to a confidence threshold or not."""
    held = _held(escalation, PRODUCTION_SCORER)
    return ViewerConfig(
        task_samples_view=TaskSamplesView(
            name="Production: the judge's verdicts",
            columns=[
                TaskSamplesColumn(id="sampleStatus"),
                TaskSamplesColumn(id="sampleId"),
                TaskSamplesColumn(id="epoch"),
                _production("category"),
                _production("verdict"),
                _production("claims"),
                _production("p_shown"),
                *held,
                # The sample's input is the rider's question; the prompt is in its transcript.
                TaskSamplesColumn(id="input"),
                TaskSamplesColumn(id="target", visible=False),
                TaskSamplesColumn(id="answer", visible=False),
                # The numbers the audit reads, last.
                _production("judge_ungrounded", visible=False),
                _production("judge_failure", visible=False),
                _production("p_ungrounded", visible=False),
                _production("graded_source", visible=False),
            ],
            # Alphabetically descending: ungrounded, then judge failures, then grounded.
            sort=[
                TaskSamplesSort.score(PRODUCTION_SCORER, "verdict", dir="desc"),
                TaskSamplesSort(column="sampleId"),
            ],
            multiline=False,
            score_labels={
                "category": "Category",
                "verdict": "Judge verdict",
                "claims": "Claims flagged",
                "p_shown": "P(ungrounded)",
                "p_ungrounded": "P(ungrounded), exact",
                **(ESCALATION_LABELS if escalation else {}),
            },
            score_color_scales={
                "verdict": VERDICT_ROLES,
                **({"escalation": ESCALATION_ROLES} if escalation else {}),
            },
            color_scales_enabled=True,
        )
    )
