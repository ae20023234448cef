"""Selective judging's rule, shared by the calibration and the run: a judge decides an answer
alone where it gave a verdict with a confidence at or above the threshold; every other answer
is escalated (to a stronger judge, then a person).

judge-compare calibrates the threshold on gold (`comparison/escalation/`); a run given it
(`-T threshold=`) marks each sample decided or escalated, in its score's value, its
explanation and a viewer column (`held_score`).

The options of selective judging are checked here too, where a person gives them, in one line
that names the option as every input error of the project does (`core.errors.InputError`):
judge-compare's `--alpha`, `--delta`, `--min-agreement` and `--human-cost-per-review`, and the
task's `-T threshold=` (the task cannot import the comparison). `flag` is the option as the
person typed it: `--alpha` on judge-compare's command line, or `-T threshold=` for a task
option (a flag ending in "=" is followed by the value without a space).
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

if TYPE_CHECKING:
    # judge-compare imports this module and starts without importing Inspect (seconds of its
    # start-up): a score is read here through its own methods, its type by the type check.
    from inspect_ai.scorer import Score

Floats = NDArray[np.float64]

Escalation = Literal["decided", "escalated"]


class OptionError(ValueError):
    """A bad option, in one line that names it. The task raises it again as an `InputError`,
    which Inspect's command line prints as it is; judge-compare as its own usage error. Not an
    `InputError` here: that is Inspect's, and judge-compare starts without importing Inspect
    (seconds of its start-up)."""


NO_GRADE = ("off", "none")
"""A candidate's graded option or source that gives it no graded score."""


def _given(flag: str, value: object) -> str:
    """The option as given; anything but a number quoted, so that "0.1" shows as a string."""
    task = flag.endswith("=")
    shown = repr(value) if task or _number(value) is None else str(value)
    return f"{flag}{shown}" if task else f"{flag} {shown}"


def _number(value: object) -> float | None:
    """The value as a float, or None for anything else (a bool, a string, a list)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def check_share(value: object, flag: str) -> float:
    """A probability strictly between 0 and 1 (alpha, delta, a minimum agreement)."""
    number = _number(value)
    # Written so that NaN, which compares false with everything, is refused too.
    if number is None or not 0 < number < 1:
        raise OptionError(f"{_given(flag, value)}: must be a number between 0 and 1, both excluded")
    return number


def check_alpha(value: object, flag: str = "--alpha") -> float:
    """The error rate allowed on the answers a judge decides alone: the guarantee is agreement
    with gold of at least 1 - alpha."""
    return check_share(value, flag)


def check_delta(value: object, flag: str = "--delta") -> float:
    """The chance, over the draw of the gold set, that the guarantee does not hold."""
    return check_share(value, flag)


def check_min_agreement(value: object, flag: str = "--min-agreement") -> float:
    """The agreement a deployed judge or cascade must guarantee: 1 - alpha."""
    return check_share(value, flag)


def check_human_cost(value: object, flag: str = "--human-cost-per-review") -> float:
    """What a person's review of one answer costs: a finite amount, 0 or more."""
    number = _number(value)
    if number is None or not 0 <= number < math.inf:
        raise OptionError(f"{_given(flag, value)}: must be a finite number, 0 or more")
    return number


def check_threshold(
    value: object, candidate: str, graded: str, flag: str = "-T threshold="
) -> float:
    """A confidence threshold given for `candidate`, a run whose graded mode is `graded`: a
    number in [0, 1], for a run that gives each sample a confidence to compare it with.

    Only the judge's token probabilities do, sample by sample. Agreement over epochs is a
    confidence of the case, known once all its epochs are judged: judge-compare reads it, but
    a run scores each epoch on its own."""
    if graded in NO_GRADE:
        raise OptionError(
            f"{_given(flag, value)}: {candidate} has no graded score (graded={graded}), so "
            "no confidence to hold to a threshold; judge with graded=logprobs"
        )
    if graded == "epochs":
        raise OptionError(
            f"{_given(flag, value)}: {candidate} is graded by agreement over epochs "
            "(graded=epochs), a confidence of the whole case that a run scoring each epoch "
            "alone does not have; judge with graded=logprobs"
        )
    number = _number(value)
    if number is None or not 0 <= number <= 1:
        raise OptionError(f"{_given(flag, value)}: must be a confidence between 0 and 1")
    return number


def confidence_of(verdict: ArrayLike, p_ungrounded: ArrayLike) -> Floats:
    """The confidence of a verdict (1 ungrounded, 0 grounded): the weight the graded score puts
    on it, P(ungrounded) for "ungrounded" and 1 - P(ungrounded) for "grounded".

    One formula for every graded source: for logprobs it is the probability of the verdict
    given; for epochs, whose P(ungrounded) is the share of epochs that said ungrounded, the
    share that gave the case's verdict; for a panel, its majority's share of the votes. Where
    the verdict is the likelier one it is max(p, 1 - p); a verdict the score leans against
    (sampled against the logprobs' preference) gets less than 1/2, below any threshold. NaN
    (no verdict, no graded score) stays NaN.
    """
    v = np.asarray(verdict, dtype=float)
    p = np.asarray(p_ungrounded, dtype=float)
    found: Floats = np.where(v == 1, p, np.where(v == 0, 1 - p, np.nan))
    return found


def decides(
    verdict: ArrayLike, confidence: ArrayLike, threshold: float | None
) -> NDArray[np.bool_]:
    """Which answers the judge decides alone: a verdict (not a failure, NaN) with a confidence
    at or above the threshold. None decides nothing: every answer is escalated."""
    v = np.asarray(verdict, dtype=float)
    c = np.asarray(confidence, dtype=float)
    if threshold is None:
        return np.zeros(np.broadcast(v, c).shape, dtype=bool)
    found: NDArray[np.bool_] = ~np.isnan(v) & (c >= threshold)
    return found


CONFIDENCE_DECIMALS = 3
"""A confidence as a reader is shown it: with more only where 3 would contradict its mark."""


def _as_read(x: float) -> Decimal:
    # What a reader reads: the shortest decimal that is the float (as Python and the viewer
    # print it), in exact arithmetic.
    return Decimal(repr(x))


def shown_apart(
    value: float,
    threshold: float,
    decimals: int,
    decided: bool,
    confidence: Callable[[Decimal], Decimal] = lambda shown: shown,
) -> tuple[float, str]:
    """`value` rounded for a reader, with its text: to `decimals` places, or to more where
    fewer would make the confidence it reads as (`confidence` of the figure shown: the figure
    itself, or 1 - it for a grounded verdict's P(ungrounded)) contradict the mark, `decided`
    (at or above `threshold`) or not. A confidence of 0.6496 escalated at a threshold of 0.65
    is shown 0.6496, never 0.650. NaN stays NaN."""
    if math.isnan(value):
        return value, "nan"
    limit = _as_read(threshold)
    for places in range(decimals, 18):
        shown = round(value, places)
        if (confidence(_as_read(shown)) >= limit) == decided:
            return shown, f"{shown:.{places}f}"
    # The float itself, whose shortest decimal is the exact value's.
    return value, repr(value)


@dataclass(frozen=True)
class SampleEscalation:
    """One scored sample held to a threshold: decided alone or escalated, and why."""

    escalation: Escalation
    confidence: float
    """The confidence of the judge's verdict, exact; NaN where there is none."""
    shown: float
    """The confidence rounded for a reader (`shown_apart`): on its mark's side of the
    threshold, as the explanation gives it; NaN where there is none."""
    line: str
    """What the explanation says of it."""


def escalate_sample(
    judge_ungrounded: float, p_ungrounded: float, threshold: float, no_grade: str = ""
) -> SampleEscalation:
    """A sample's verdict (1 ungrounded, 0 grounded, NaN a judge failure) and its graded score
    (NaN where none, `no_grade` saying why) held to `threshold`."""
    confidence = float(confidence_of(judge_ungrounded, p_ungrounded))
    # The threshold as given (the shortest decimal of the float), never rounded towards a
    # confidence it separates.
    held = f"the threshold {threshold!r}"
    decided = bool(decides(judge_ungrounded, confidence, threshold))
    shown, text = shown_apart(confidence, threshold, CONFIDENCE_DECIMALS, decided)
    if decided:
        return SampleEscalation(
            "decided",
            confidence,
            shown,
            f"Decided alone: the judge's confidence in its verdict, {text}, is at or above {held}.",
        )
    if math.isnan(judge_ungrounded):
        why = f"a judge failure, no verdict to hold to {held}"
    elif math.isnan(confidence):
        why = f"no confidence to hold to {held}" + (f": {no_grade}" if no_grade else "")
    else:
        why = f"the judge's confidence in its verdict, {text}, is below {held}"
    return SampleEscalation("escalated", confidence, shown, f"Escalated to a person: {why}.")


def hold_sample(
    judge_ungrounded: float, p_ungrounded: float, graded: str, threshold: float
) -> SampleEscalation:
    """A scored sample held to the threshold on the judge's token probabilities alone: a
    verdict graded by epochs (`graded`, the sample's graded mode) has a confidence only over
    the case's epochs, never in one of them."""
    if graded == "epochs":
        return escalate_sample(
            judge_ungrounded, math.nan, threshold, "graded=epochs grades the whole case"
        )
    return escalate_sample(judge_ungrounded, p_ungrounded, threshold)


def held_score(scored: "Score", graded: str, threshold: float, p_decimals: int) -> "Score":
    """A scored sample held to a confidence threshold (`-T threshold=`; `graded`, its graded
    mode): its value gains the columns, decided alone or escalated and the confidence of the
    verdict (NaN where there is none), and its explanation says which and why.

    The confidence is kept exact (a filter `confidence >= 0.65` lists the decided); the figures
    a reader is shown, the confidence and P(ungrounded) (to `p_decimals` places, as the sample
    list shows it: `viewer_columns.SHOWN_DECIMALS`), are rounded as far as they can be without
    reading as the other side of the threshold (`shown_apart`)."""
    value = cast(dict[str, Any], scored.value)
    held = hold_sample(value["judge_ungrounded"], value["p_ungrounded"], graded, threshold)
    columns: dict[str, Any] = {
        "escalation": held.escalation,
        "confidence": held.confidence,
        "confidence_shown": held.shown,
    }
    if not math.isnan(held.confidence):
        # The confidence is P(ungrounded) for an ungrounded verdict, 1 - it for a grounded one.
        grounded = value["judge_ungrounded"] == 0
        columns["p_shown"], _ = shown_apart(
            value["p_ungrounded"],
            threshold,
            p_decimals,
            held.escalation == "decided",
            (lambda p: 1 - p) if grounded else (lambda p: p),
        )
    return scored.model_copy(
        update={
            "value": {**value, **columns},
            "explanation": f"{scored.explanation}\n\n{held.line}",
        }
    )
