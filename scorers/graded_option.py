"""The graded option (`-T graded=`, `-S graded=`): checked once where it is given, and resolved
into the graded mode of a sample's model."""

from typing import Literal, cast, get_args

from farejudge.core.errors import InputError
from farejudge.providers.capabilities import computes_logprobs

GradedMode = Literal["logprobs", "epochs", "off"]
"""How a sample's graded score is got: the judge's token probabilities; its verdict itself
(1 or 0, which a mean over epochs grades); not at all."""

GRADED_OPTIONS = ("auto", *get_args(GradedMode))
"""A graded mode, or auto for the provider's default."""


class GradedOption(str):
    """The graded option, checked: one of GRADED_OPTIONS.

    A str, so Inspect records it with the task and the scorer as the text it was given. It is
    checked once, where it is given (`given`), and trusted wherever it is passed on: the task
    checks `-T graded=` and hands the checked option to its solver and its scorer; the scorer
    checks only what reaches it unchecked (`inspect score -S graded=`).
    """

    __slots__ = ()

    @classmethod
    def given(cls, value: object, flag: str) -> "GradedOption":
        """`value` as given with `flag` (the task's `-T`, the scorer's `-S`), checked; a
        one-line error naming the accepted ones otherwise."""
        if isinstance(value, GradedOption):
            return value
        # Inspect reads `-T graded=off` as YAML, where "off" is the boolean false.
        if value is False:
            value = "off"
        if isinstance(value, str) and value in GRADED_OPTIONS:
            return cls(value)
        accepted = f"{', '.join(GRADED_OPTIONS[:-1])} or {GRADED_OPTIONS[-1]}"
        raise InputError([f"{flag} graded={value!r}: give {accepted}"])

    def mode(self, model: str) -> GradedMode:
        """How `model`'s samples get their graded score: auto reads the judge's token
        probabilities where its provider computes them in this process, its verdict elsewhere."""
        if self == "auto":
            return "logprobs" if computes_logprobs(model) else "epochs"
        return cast(GradedMode, str(self))

    def known_mode(self, model: str | None) -> str:
        """The mode of `model`'s samples where the model is known; the option itself (auto
        stays auto) where it is not yet, as a task made outside an eval."""
        return str(self) if model is None else self.mode(model)
