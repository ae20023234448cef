"""Errors caused by the user's input (case files, task options), not by the code."""

from rich.markup import escape

from farejudge.core.inspect_internals import PrerequisiteError


class InputError(PrerequisiteError):
    """A mistake in what the user gave the eval.

    Inspect's CLI prints a PrerequisiteError as its message alone, with no traceback:
    each line of the message names one problem and where it is.
    """

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        # The CLI prints the message through rich: a "[draft]" in a path is not markup.
        super().__init__(escape("\n".join(problems)))

    def __str__(self) -> str:
        return "\n".join(self.problems)
