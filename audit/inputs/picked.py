"""What the deployed judge measured when it was picked: decision.json's preferred candidate.

Its sensitivity is the candidate's recall, its specificity 2 x balanced accuracy - recall, at
its operating point (the verdict, or a cut-off on P(ungrounded)); the audit reads the period's
labels against them, plans its sample from them, and the drift detector holds the judge to
them.
"""

from pathlib import Path

from pydantic import ValidationError

from farejudge.audit.record.schema import AtPick, read_record
from farejudge.audit.stats.planning import JudgeFigures
from farejudge.core.decision_file import Decision
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown

_DECISION_FIELDS = {"sensitivity": "recall"}
"""AtPick's fields decision.json names otherwise; the rest it names alike."""


def read_at_pick(path: Path) -> AtPick:
    """The preferred judge's figures in the decision.json at `path`, or an InputError of one
    line naming the file and what is missing."""
    name = shown(path)
    decision = read_record(path, Decision, "decision file", "a decision.json")
    prefer = decision.prefer
    if prefer is None:
        raise InputError([f"{name}: prefers no judge: {decision.reason or 'no pick'}"])
    found = [c for c in decision.frontier if (c.version, c.model) == (prefer.version, prefer.model)]
    if not found:
        raise InputError(
            [f"{name}: its frontier has no figures for {prefer.version} on {prefer.model}"]
        )
    candidate = found[0]
    recall, accuracy = candidate.recall, candidate.balanced_accuracy
    if recall.estimate is None or accuracy.estimate is None:
        raise InputError(
            [f"{name}: {prefer.version} on {prefer.model} has no recall or balanced accuracy"]
        )
    try:
        return AtPick(
            decision=name,
            version=prefer.version,
            model=prefer.model,
            operating_point=candidate.operating_point,
            threshold=candidate.threshold,
            cases=candidate.cases,
            sensitivity=recall,
            # Within [0, 1], as it is but for the last bit of rounding.
            specificity=min(1.0, max(0.0, 2 * accuracy.estimate - recall.estimate)),
            balanced_accuracy=accuracy,
            failure_rate=candidate.failure_rate,
        )
    except ValidationError as err:
        first = err.errors()[0]
        field = _DECISION_FIELDS.get(str(first["loc"][0]), str(first["loc"][0]))
        message = first["msg"].removeprefix("Value error, ")
        where = f"frontier.{decision.frontier.index(candidate)}.{field}"
        raise InputError([f"{name}: field {where!r}: {message}"]) from None


def judge_figures(at_pick: AtPick) -> JudgeFigures:
    """The figures the planning takes."""
    failures = at_pick.failure_rate.estimate
    return JudgeFigures(
        sensitivity=at_pick.sensitivity.estimate or 0.0,
        specificity=at_pick.specificity,
        failure_rate=0.0 if failures is None else failures,
    )
