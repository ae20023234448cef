"""One retry policy for judge calls, Inspect's, bounded by default.

Inspect retries a failed model call without end unless told otherwise, so a dead endpoint
never errors a sample and `fail_on_error` never stops the run. The task sets a bound, which
`--max-retries` and `--timeout` override (Inspect merges the command line over a task's
config). Under each of Inspect's attempts the OpenAI and Anthropic SDKs retry on their own
(twice by default), so a sample's error would say "2 attempts" where the server saw 6
requests: `leave_retries_to_inspect` leaves the retrying to Inspect alone.
"""

from inspect_ai.model import GenerateConfig, Model

# Retries of a failed call, and the seconds after which no new attempt starts. Inspect waits
# 3, 6, 12 and 24 s (plus up to 3 s each) between attempts, so against an endpoint that
# refuses at once a call gives up after 5 attempts, 45-57 s; the timeout bounds attempts that
# are slow to fail. Google's provider also takes the timeout as each request's own limit.
DEFAULT_MAX_RETRIES = 4
DEFAULT_TIMEOUT = 300

# The model argument of the SDK clients (OpenAI's, Anthropic's and those built on theirs)
# that sets their own retries.
SDK_RETRIES_ARG = "max_retries"


def retry_config() -> GenerateConfig:
    """The task's bound on retries, a new config for each task."""
    return GenerateConfig(max_retries=DEFAULT_MAX_RETRIES, timeout=DEFAULT_TIMEOUT)


def leave_retries_to_inspect(model: Model) -> None:
    """Turn off the provider SDK's own retries, unless `-M max_retries=N` asked for them."""
    client = getattr(model.api, "client", None)
    if SDK_RETRIES_ARG not in model.model_args and isinstance(
        getattr(client, SDK_RETRIES_ARG, None), int
    ):
        setattr(client, SDK_RETRIES_ARG, 0)
