"""A run whose log could not be written is no success: one line names the log folder, and
`inspect eval` exits 1.

Inspect records a failed log write (a full disk, a lost mount) as an errored log that exists
only in memory (`inspect_ai/_eval/run.py`, `_run_task`: "encountered an error while starting or
writing its log"), says so through its log handler, which `--display none` silences, and
`inspect eval` then exits 0 whatever its logs say: `inspect_ai/_cli/eval.py`, `eval_exec`, runs
`eval(**params)` and returns True; only `inspect eval-set` exits by the logs' status. A hook at
the end of the run reads each log's file back. Under the `inspect eval` and `inspect eval-retry`
commands, where one does not hold what the run ended with, the hook fails the command: one
line per such log and exit status 1. Elsewhere (the Python API, `judge-matrix`) the caller
has the logs: `judge-matrix` asks `unwritten` of each.
"""

import functools
import os
import sys
from pathlib import Path

from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.log import EvalLog, read_eval_log, read_eval_log_async
from inspect_ai.util import LimitExceededError
from rich.markup import escape

from farejudge.core.inspect_internals import PrerequisiteError

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


def _silent_command() -> bool:
    """Whether this process is one of the `inspect` commands that exit 0 whatever the logs say."""
    program = Path(sys.argv[0])
    inspect_cli = program.stem == "inspect" or program.parts[-2:] == ("inspect_ai", "__main__.py")
    return inspect_cli and sys.argv[1:2] in _SILENT_COMMANDS


# Both bases keep what Inspect prints in `message`, here a str (PrerequisiteError allows any rich
# renderable, LimitExceededError a str only).
class LogsNotWritten(LimitExceededError, PrerequisiteError):  # type: ignore[misc]
    """Some of the run's logs are not on disk, one line each: the run failed.

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


class LogWriteCheck(Hooks):
    async def on_run_end(self, data: RunEnd) -> None:
        # A run that raised (this hook included) ends with the hooks called again, the
        # exception given.
        if data.exception is not None or not _silent_command():
            return
        lines = [line for log in data.logs if (line := await _unwritten_async(log))]
        if lines:
            raise LogsNotWritten(lines)


@functools.cache
def install_log_write_check() -> None:
    """Register the hook, once a process, after the log redaction's: the hooks run in that
    order, and the logs that were written are redacted before this one may end the run."""
    hooks(name="farejudge_log_write_check", description="Fails a run whose log was not written.")(
        LogWriteCheck
    )
