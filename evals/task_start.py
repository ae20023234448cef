"""What each of the project's tasks does as Inspect creates it: its hooks installed, and the
`-T` options every task shares checked where they come in, one line each naming the option."""

from collections.abc import Mapping, Sequence

from farejudge.core.errors import InputError
from farejudge.evals.cli_errors import install_error_lines
from farejudge.evals.log_redaction import install_log_redaction
from farejudge.evals.log_written import install_log_write_check


def start_task(task: str, options: Sequence[str], unknown: Mapping[str, object]) -> None:
    """Install the project's hooks; an InputError naming each of `unknown`, the `-T` options
    the task (`task`, declaring `options`) was given and does not declare.

    Inspect drops `-T` options a task does not declare: a misspelt option would silently run
    the defaults."""
    # Registered here, after Inspect's start-up: a hook registered through the entry point
    # makes Inspect print a "hooks enabled" banner before every run, even a one-line error;
    # and Inspect's command line installs its exception hook as it starts.
    install_error_lines()
    install_log_redaction()
    install_log_write_check()
    if unknown:
        raise InputError(
            [f"-T {name}: not an option of {task}" for name in unknown]
            + [f"options: {', '.join(options)}"]
        )


def check_single(given: Mapping[str, object]) -> None:
    """Each option in `given` (name to value) one string or none: `-T prompt_version=v1,v2`
    arrives as a list, and one task runs one of each (judge-matrix runs several)."""
    for name, value in given.items():
        if value is not None and not isinstance(value, str):
            raise InputError([f"-T {name}={value!r}: give one {name}, not a list"])


def check_fail_on_error(value: object) -> None:
    """`-T fail_on_error=`: a share of samples, true or false."""
    if not isinstance(value, bool | float | int):
        raise InputError([f"-T fail_on_error={value!r}: give a share, true or false"])
