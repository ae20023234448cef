"""The options of selective judging, checked where a person gives them: one line that names the
option, as every input error of the project is (`core.errors.InputError`).

Here, below both of their users: judge-compare's `--alpha`, `--delta`, `--min-agreement` and
`--human-cost-per-review`, and the task's `-T threshold=` (the task cannot import the
comparison). `flag` is the option as the person typed it: `--alpha` on judge-compare's command
line, or `-T threshold=` for a task option (a flag ending in "=" is followed by the value
without a space).
"""

import math


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
