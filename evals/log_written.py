"""A run that is no success does not exit 0: a log that could not be written, or a run that
judged nothing or stopped on its errors, is one line each, and `inspect eval` exits 1.

Inspect records a failed log write (a full disk, a lost mount) as an errored log that exists
only in memory (`inspect_ai/_eval/run.py`, `_run_task`: "encountered an error while starting or
writing its log"), says so through its log handler, which `--display none` silences, and
`inspect eval` then exits 0 whatever its logs say: `inspect_ai/_cli/eval.py`, `eval_exec`, runs
`eval(**params)` and returns True; only `inspect eval-set` exits by the logs' status. The same
holds for a run whose every sample errored (a key the provider refused): a CI step that checks
the exit code would pass on nothing. A hook at the end of the run reads each log's file back,
and its sample summaries where the run judged nothing or stopped on an error. Under the
`inspect eval` and `inspect eval-retry` commands, where one does not hold what the run ended
with, the hook fails the command: one line per such log and exit status 1. Elsewhere (the
Python API, `judge-matrix`) the caller has the logs: `judge-matrix` asks `unwritten` of each,
and its eval set fails on an errored log by itself.
"""

import functools
import os
from collections.abc import Sequence

from inspect_ai.hooks import Hooks, RunEnd, TaskStart, hooks
from inspect_ai.log import (
    EvalLog,
    read_eval_log,
    read_eval_log_async,
    read_eval_log_sample_summaries_async,
)
from inspect_ai.model import ModelAPI
from inspect_ai.util import LimitExceededError
from rich.markup import escape

from farejudge.core.inspect_internals import PrerequisiteError
from farejudge.evals.cli_errors import inspect_command
from farejudge.evals.log_redaction import task_models
from farejudge.evals.provider_errors import outage_cause

# The statuses with which a provider refuses the key it was sent.
_KEY_REFUSED = (401, 403)
_CAUSE_CHARS = 200

# The Inspect commands whose exit status says nothing of their logs.
_SILENT_COMMANDS = (["eval"], ["eval-retry"])


def _cause(log: EvalLog) -> str:
    """What Inspect caught, as Python words it: the traceback's last line ("OSError: [Errno
    28] No space left on device"), where the recorded message is the exception's repr."""
    if log.error is None:
        return "no error recorded"
    lines = [line.strip() for line in log.error.traceback.splitlines() if line.strip()]
    return lines[-1] if lines else log.error.message


def why_unwritten(log: EvalLog, on_disk: EvalLog | Exception) -> str | None:
    """One line naming the log folder when `on_disk` (the log's file read back, or what reading
    it raised) does not hold the run's end; None where it does."""
    if isinstance(on_disk, EvalLog) and on_disk.status == log.status:
        return None
    folder, name = os.path.split(log.location)
    held = (
        f"holds the run as '{on_disk.status}'"
        if isinstance(on_disk, EvalLog)
        else "cannot be read back"
    )
    return (
        f"{log.eval.task} ({log.eval.model}): the log could not be written in {folder}: "
        f"{_cause(log)}; {name} {held}"
    )


def unwritten(log: EvalLog) -> str | None:
    """`why_unwritten` for `log`, its file read back here."""
    try:
        on_disk: EvalLog | Exception = read_eval_log(log.location, header_only=True)
    # Whatever the reader raises (no file, a torn zip, truncated JSON), the file is not the log.
    except Exception as err:
        on_disk = err
    return why_unwritten(log, on_disk)


async def _unwritten_async(log: EvalLog) -> str | None:
    try:
        on_disk: EvalLog | Exception = await read_eval_log_async(log.location, header_only=True)
    # As in `unwritten`.
    except Exception as err:
        on_disk = err
    return why_unwritten(log, on_disk)


def key_source(api: ModelAPI) -> str:
    """Where a provider's key came from, by name, never by value: the environment variable
    that holds it, or the model argument."""
    if not api.api_key:
        return "no key given"
    for name in api.api_key_vars:
        if os.environ.get(name) == api.api_key:
            return f"the key in {name}"
    return "the key given as -M api_key"


def _error_cause(message: str, keys: str | None) -> str:
    """What a sample error says, short: its HTTP status and exception, and for a refused key
    where that key came from; else the message itself, cut to a line."""
    found = outage_cause(message)
    if found is None or found[1] is None:
        text = " ".join(message.split())
        return text if len(text) <= _CAUSE_CHARS else text[:_CAUSE_CHARS] + "..."
    kind, status = found
    refused = f": the provider refused {keys}" if status in _KEY_REFUSED and keys else ""
    return f"HTTP {status} ({kind}){refused}"


def why_unjudged(log: EvalLog, errors: Sequence[str], samples: int, keys: str | None) -> str | None:
    """One line where the run judged nothing, or stopped on an error; None where it judged
    and ended as it should. `errors` are its samples' errors (of `samples` logged), and `keys`
    where its model's key came from (`key_source`), if known."""
    judged = log.results.completed_samples if log.results else 0
    if log.status != "error" and not (log.status == "success" and judged == 0):
        return None
    where = f"{log.eval.task} ({log.eval.model})"
    if errors:
        what = (
            "nothing judged"
            if judged == 0
            else f"the run stopped on errored samples ({judged} judged)"
        )
        # An outage's error before a cancellation's: samples in flight when the run stopped
        # are cancelled, and say nothing of why.
        first = _error_cause(next((e for e in errors if outage_cause(e)), errors[0]), keys)
        cause = f"{len(errors)} of {samples} samples errored, the first with {first}"
    elif log.error is not None:
        what, cause = "the run stopped on an error", _error_cause(log.error.message, None)
    else:
        what, cause = "nothing judged", "no sample was run"
    return f"{where}: {what}: {cause}; log: {log.location}"


async def _unjudged_async(log: EvalLog, keys: dict[str, str]) -> str | None:
    judged = log.results.completed_samples if log.results else 0
    if log.status not in ("success", "error") or (log.status == "success" and judged):
        return None
    summaries = await read_eval_log_sample_summaries_async(log.location)
    errors = [summary.error for summary in summaries if summary.error]
    return why_unjudged(log, errors, len(summaries), keys.get(log.eval.model))


def _silent_command() -> bool:
    """Whether this process is one of the `inspect` commands that exit 0 whatever the logs say."""
    return inspect_command()[:1] in _SILENT_COMMANDS


# Both bases keep what Inspect prints in `message`, here a str (PrerequisiteError allows any rich
# renderable, LimitExceededError a str only).
class RunFailed(LimitExceededError, PrerequisiteError):  # type: ignore[misc]
    """Some of the run's logs are not on disk, or judged nothing, one line each: the run
    failed.

    Inspect logs and drops whatever else a hook raises; a limit it lets through, and this one
    leaves the run once every log is written and the display has closed. As a
    PrerequisiteError, Inspect's command line prints it as its lines alone, exit status 1.
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        # Inspect prints the message through rich: a "[draft]" in a path is not markup.
        super().__init__("custom", value=len(lines), limit=0, message=escape("\n".join(lines)))

    def __str__(self) -> str:
        return "\n".join(self.lines)


class RunOutcomeCheck(Hooks):
    def __init__(self) -> None:
        self._keys: dict[str, str] = {}
        """Model → where its key came from (`key_source`), as each task starts."""

    async def on_task_start(self, data: TaskStart) -> None:
        for model in task_models():
            self._keys[str(model)] = key_source(model.api)

    async def on_run_end(self, data: RunEnd) -> None:
        # A run that raised (this hook included) ends with the hooks called again, the
        # exception given.
        if data.exception is not None or not _silent_command():
            return
        lines = []
        for log in data.logs:
            line = await _unwritten_async(log) or await _unjudged_async(log, self._keys)
            if line:
                lines.append(line)
        if lines:
            raise RunFailed(lines)


@functools.cache
def install_log_write_check() -> None:
    """Register the hook, once a process, after the log redaction's: the hooks run in that
    order, and the logs that were written are redacted before this one reads them or ends the
    run."""
    hooks(
        name="farejudge_run_outcome_check",
        description="Fails a run whose log was not written, or that judged nothing.",
    )(RunOutcomeCheck)
