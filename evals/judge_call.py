"""Call the judge: with or without the verdict schema; faults become judge failures."""

import os
import re

from inspect_ai._util.exception import TerminateSampleError
from inspect_ai.model import ModelOutput, ResponseSchema
from inspect_ai.model._model import ModelGenerateError, ModelRefusalError
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import JSONSchema, LimitExceededError
from tenacity import RetryError

# The judge's reply format as the prompts state it. String bounds keep a small local model
# from running on inside one string until the token limit cuts the JSON off.
VERDICT_SCHEMA = ResponseSchema(
    name="verdict",
    description="A groundedness verdict on the assistant's answer.",
    json_schema=JSONSchema(
        type="object",
        properties={
            "grounded": JSONSchema(type="boolean"),
            "unsupported_claims": JSONSchema(
                type="array", items=JSONSchema(type="string", maxLength=300)
            ),
            "reasoning": JSONSchema(type="string", maxLength=400),
        },
        required=["grounded", "unsupported_claims", "reasoning"],
        additionalProperties=False,
    ),
    strict=True,
)

# Providers that enforce a response schema by constrained decoding, for which the schema is
# on unless the task says otherwise.
SCHEMA_BY_DEFAULT = ("gguf/",)


def use_schema(constrained: bool | None, model: str) -> bool:
    if constrained is not None:
        return constrained
    return model.startswith(SCHEMA_BY_DEFAULT)


# Names of environment variables whose values must never reach a log: a provider or a local
# server may echo the credential it was sent inside its error text.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL", re.IGNORECASE)
_MAX_ERROR_CHARS = 500


def redact_secrets(text: str) -> str:
    for name, value in os.environ.items():
        if _SECRET_NAME.search(name) and len(value) >= 8:
            text = text.replace(value, f"[{name} redacted]")
    return text


def describe_provider_error(err: BaseException) -> str:
    """One line naming a provider fault, short enough to read in a score's explanation."""
    attempts = ""
    if isinstance(err, RetryError):
        # Inspect's retry gives up by raising tenacity's wrapper; the cause is the last attempt.
        attempts = f" (gave up after {err.last_attempt.attempt_number} attempts)"
        err = err.last_attempt.exception() or err
    # ModelGenerateError's own message carries the whole request, prompt included; the
    # provider's exception, its cause, names the fault.
    if isinstance(err, ModelGenerateError) and err.provider_message:
        text = err.provider_message
        if err.status_code is not None and str(err.status_code) not in text:
            text = f"HTTP {err.status_code}: {text}"
        err = err.__cause__ or err
    else:
        text = str(err) or repr(err)
    text = " ".join(text.split())
    if len(text) > _MAX_ERROR_CHARS:
        text = text[:_MAX_ERROR_CHARS] + "..."
    return redact_secrets(f"{type(err).__name__}: {text}{attempts}")


@solver
def judge_generate(constrained: bool | None = None) -> Solver:
    """Call the judge; a fault that outlives Inspect's own retries becomes a judge failure.

    `constrained` asks for the verdict schema (None: only where the provider enforces it by
    constrained decoding). Constraining changes a judge's behaviour, so each sample's store
    records whether it was used.

    Inspect retries transient provider errors inside `generate`; what escapes would fail the
    sample, and with it the run, after hours of paid calls. Recorded as the judge's output
    instead, the scorer counts it as a judge failure that names the cause.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        schema = use_schema(constrained, str(state.model))
        state.store.set("constrained_decoding", schema)
        try:
            if schema:
                return await generate(state, response_schema=VERDICT_SCHEMA)
            return await generate(state)
        # Inspect ends a sample by raising these through the solver; they are not the judge's.
        except (LimitExceededError, TerminateSampleError):
            raise
        except ModelRefusalError as err:
            state.output = err.output
        except Exception as err:
            state.output = ModelOutput.from_content(
                model=str(state.model),
                content="",
                stop_reason="unknown",
                error=describe_provider_error(err),
            )
        return state

    return solve
