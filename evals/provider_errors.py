"""A provider's failure told as one redacted line, and the error that errors the sample.

An outage is not the judge's behaviour: the solver raises `JudgeUnreachable` in place of the
provider's exception, so Inspect records a sample error (retried by `inspect eval-retry`)
whose message names the cause and quotes no credential.
"""

import re

from inspect_ai.model import ModelOutput
from tenacity import RetryError

from farejudge.core.credentials import redact_secrets
from farejudge.core.inspect_internals import ModelGenerateError

# redact_secrets with the rest: the schema check redacts its rejection line too.
__all__ = [
    "JudgeUnreachable",
    "SchemaRejected",
    "describe_provider_error",
    "outage_cause",
    "prompt_overflow",
    "provider_text",
    "redact_secrets",
]

_MAX_ERROR_CHARS = 500


def provider_text(err: BaseException) -> tuple[BaseException, str, int | None]:
    """The provider's own exception, its message, and the HTTP status where there is one."""
    if isinstance(err, RetryError):
        err = err.last_attempt.exception() or err
    # ModelGenerateError's own message carries the whole request, prompt included; the
    # provider's exception, its cause, names the fault.
    if isinstance(err, ModelGenerateError) and err.provider_message:
        return err.__cause__ or err, err.provider_message, err.status_code
    status = getattr(err, "status_code", None)
    return err, str(err) or repr(err), status if isinstance(status, int) else None


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text[:_MAX_ERROR_CHARS] + "..." if len(text) > _MAX_ERROR_CHARS else text


def describe_provider_error(err: BaseException) -> str:
    """One line naming a provider fault, short enough to read in the viewer's sample list."""
    attempts = ""
    if isinstance(err, RetryError):
        # Inspect's retry gives up by raising tenacity's wrapper; the cause is the last attempt.
        n = err.last_attempt.attempt_number
        attempts = f" (gave up after {n} attempt{'' if n == 1 else 's'})"
    cause, text, status = provider_text(err)
    if status is not None:
        # Always in one place, so a run's end can read it back (`outage_cause`); the SDKs'
        # own "Error code: 401 - " would only say it twice.
        text = f"HTTP {status}: {text.removeprefix(f'Error code: {status} - ')}"
    return redact_secrets(f"{type(cause).__name__}: {_one_line(text)}{attempts}")


_OUTAGE = re.compile(r"judge unreachable: (?P<kind>\w+): (?:HTTP (?P<status>\d{3}): )?")


def outage_cause(message: str) -> tuple[str, int | None] | None:
    """The exception's name and the HTTP status (None without one) in a sample error that
    `describe_provider_error` worded; None for any other error."""
    found = _OUTAGE.match(message)
    if found is None:
        return None
    status = found.group("status")
    return found.group("kind"), int(status) if status else None


def prompt_overflow(output: ModelOutput) -> str | None:
    """The provider's words where it refused the prompt as longer than the model's context
    window; None for any other output.

    Inspect turns that refusal into a reply: Anthropic's HTTP 400 "prompt is too long" (and 413)
    and OpenAI's `context_length_exceeded` become an output with the stop reason `model_length`
    whose text is the provider's message (Anthropic's with `error` set), and so does the
    in-process gguf/ provider's overflow. No token was generated, so there is no usage; a
    reply cut off at the context window mid-generation has one, and is the judge's.
    """
    if output.empty or output.stop_reason != "model_length":
        return None
    if output.error is None and output.usage is not None:
        return None
    said = output.completion or output.error or "no message"
    return redact_secrets(f"the prompt does not fit the judge's context window: {_one_line(said)}")


class JudgeUnreachable(RuntimeError):
    """The judge gave no reply because its provider failed: an outage, not a verdict.

    Raised in place of the provider's exception so the sample error Inspect records carries
    one redacted line, not an error text that may quote a credential.
    """

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        # What Inspect shows as the sample's error, in the sample list and the log.
        self.message = f"judge unreachable: {cause}"


class SchemaRejected(JudgeUnreachable):
    """The server refused the verdict schema itself; no retry will change that."""
