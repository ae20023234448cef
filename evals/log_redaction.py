"""No credential in a log: Inspect hooks that keep each credential out of a run's records.

Inspect records a provider's error as the provider worded it: in the model event (its error,
traceback and call response) and in its trace log. A server that quotes back the key it was
sent puts that key there, and Inspect has no filter for either. These hooks

- learn, as each task starts, the key its models were given: a key given as `-M api_key=…` is
  in no environment variable;
- redact every record of Inspect's log handler (the trace log, the terminal) as it is
  emitted;
- rewrite each log the run wrote, once it ends, with every credential replaced by its name:
  both formats, every part (samples, events, attachments, errors, model arguments);
- redact what a run killed before its end left: its sample buffer as this run starts, its log
  as this run ends (`killed_runs`).

Inspect's `override_api_key` hook would see every key too, but implementing it makes Inspect
retry every authentication failure without end. The task installs the hooks as it is created
(`install_log_redaction`), not at import.
"""

import functools
import logging
import zipfile
from pathlib import Path
from typing import cast

from inspect_ai.hooks import Hooks, RunEnd, RunStart, TaskStart, hooks
from inspect_ai.log import EvalLog, EvalSpec, read_eval_log_async, write_eval_log_async
from inspect_ai.model import Model, get_model, model_roles
from pydantic import BaseModel

from farejudge.core.credentials import Redactor, is_secret_name, redactor, remember
from farejudge.evals.cli_errors import inspect_command
from farejudge.evals.killed_runs import redact_buffers, redact_killed_logs


class _RedactRecords(logging.Filter):
    """Redacts a log record in place before any handler writes it: message and extra fields."""

    def filter(self, record: logging.LogRecord) -> bool:
        redact = redactor()
        if not redact:
            return True
        try:
            message = record.getMessage()
        except (TypeError, ValueError):
            # Arguments that do not fit the message: the handler reports the record as it is.
            return True
        redacted = redact(message)
        if redacted is not message:
            record.msg, record.args = redacted, None
        if record.exc_info and not record.exc_text:
            # Formatters render the exception once into exc_text and reuse it after.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        # Inspect's trace log writes the extra fields (the error text, the stack trace).
        for name, value in list(vars(record).items()):
            if isinstance(value, str):
                setattr(record, name, redact(value))
        return True


_RECORD_FILTER = _RedactRecords()


def task_models() -> list[Model]:
    """The models of the task being started: its own and each role's."""
    models = [get_model()]
    for role in model_roles().values():
        models += role if isinstance(role, list) else [role]
    return models


def _model_arguments(spec: EvalSpec) -> list[tuple[str, object]]:
    """(name, value) of every model argument a log records, nested ones included."""
    found: list[tuple[str, object]] = []
    pending: list[dict[str, object]] = [spec.model_args]
    for role in (spec.model_roles or {}).values():
        pending += [config.args for config in (role if isinstance(role, list) else [role])]
    while pending:
        for name, value in pending.pop().items():
            if isinstance(value, dict):
                pending.append(value)
            elif is_secret_name(name):
                found.append((name, value))
    return found


def _redacted(value: object, redact: Redactor) -> object:
    """`value` with every credential in its text replaced; `value` itself where none was."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, BaseModel):
        changed = {name: new for name, old in value if (new := _redacted(old, redact)) is not old}
        return value.model_copy(update=changed) if changed else value
    if isinstance(value, dict):
        keys = [_redacted(key, redact) for key in value]
        values = [_redacted(element, redact) for element in value.values()]
        if _any_new(keys, list(value)) or _any_new(values, list(value.values())):
            return dict(zip(keys, values, strict=True))
        return value
    if isinstance(value, list):
        elements = [_redacted(element, redact) for element in value]
        return elements if _any_new(elements, value) else value
    return value


def _any_new(new: list[object], old: list[object]) -> bool:
    return any(a is not b for a, b in zip(new, old, strict=True))


def _may_hold(location: str, redact: Redactor) -> bool:
    """Whether the log file may hold a credential, from its bytes: reading it whole is slow.

    An .eval log is a zip of JSON files (zstd-compressed: Inspect's reader, imported above,
    teaches zipfile that codec). A log that is not a local file is read whole.
    """
    path = Path(location)
    if not path.is_file():
        # A local log that is not there was never written (a full disk): nothing to redact.
        return "://" in location
    if not zipfile.is_zipfile(path):
        return redact.found_in(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        return any(redact.found_in(archive.read(member)) for member in archive.namelist())


async def redact_log(header: EvalLog) -> bool:
    """Rewrite the log `header` heads with every credential replaced; whether it held one."""
    redact = redactor(_model_arguments(header.eval))
    if not redact or not _may_hold(header.location, redact):
        return False
    log = await read_eval_log_async(header.location)
    redacted = cast(EvalLog, _redacted(log, redact))
    if redacted is log:
        return False
    await write_eval_log_async(redacted, header.location)
    return True


class LogRedaction(Hooks):
    async def on_task_start(self, data: TaskStart) -> None:
        # A key given as `-M api_key=…` is in no environment variable, and Inspect keeps it
        # out of the log's model arguments: the task's models know it.
        for model in task_models():
            if isinstance(model.api.api_key, str):
                remember("api_key", model.api.api_key)

    async def on_run_start(self, data: RunStart) -> None:
        # Inspect's handler sits on the root logger and on inspect_ai's, which does not
        # propagate; by the start of a run it is installed.
        for name in ("", "inspect_ai"):
            for handler in logging.getLogger(name).handlers:
                if _RECORD_FILTER not in handler.filters:
                    handler.addFilter(_RECORD_FILTER)
        # What a killed run left in Inspect's sample buffer: no log folder is needed to find it.
        redact_buffers(redactor())

    async def on_run_end(self, data: RunEnd) -> None:
        for log in data.logs:
            await redact_log(log)
        # What a killed run left beside this run's logs, or beside the log `inspect eval-retry`
        # resumed (whose run writes its log elsewhere): its log. The keys given to this run's
        # models are known by now.
        redact = redactor()
        folders = [Path(log.location).parent for log in data.logs if "://" not in log.location]
        redact_killed_logs([*folders, *_retried_folders()], redact)
        redact_buffers(redact)


def _retried_folders() -> list[Path]:
    """The folders of the logs `inspect eval-retry` was given; none under any other command."""
    command = inspect_command()
    if command[:1] != ["eval-retry"]:
        return []
    logs = (Path(arg) for arg in command[1:] if arg.endswith((".eval", ".json")))
    return [log.resolve().parent for log in logs if log.is_file()]


@functools.cache
def install_log_redaction() -> None:
    """Register the hooks, once a process; call it while a task is being created.

    Hooks registered as Inspect starts (those of the entry point modules) are listed in a
    banner before every run, error runs included, and a bad option would then print four lines
    instead of its one. Inspect runs hooks registered later all the same, and creates every
    task after its start-up and before the run starts.
    """
    hooks(name="farejudge_log_redaction", description="Keeps credentials out of the logs.")(
        LogRedaction
    )
