"""Call the judge: with or without the verdict schema.

What the judge says, or fails to say, is its behaviour and is scored. A provider that could
not be reached, or refused the request, is not: the sample errors (Inspect lists it with its
cause and `inspect eval-retry` judges it again) instead of counting against the judge. So is
a prompt longer than the judge's context window, which Inspect hands back as a reply.
"""

from inspect_ai.model import ModelRefusalError, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from farejudge.core.inspect_internals import TerminateSampleError
from farejudge.evals.provider_errors import (
    JudgeUnreachable,
    describe_provider_error,
    prompt_overflow,
)
from farejudge.evals.retry_policy import leave_retries_to_inspect
from farejudge.evals.schema_check import SchemaCheck
from farejudge.evals.verdict_schema import Constrained, schema_mode


@solver
def judge_generate(constrained: Constrained = None, task_model: str | None = None) -> Solver:
    """Call the judge; a provider fault that outlives Inspect's own retries errors the sample.

    `constrained` asks for the verdict schema: true sends it as the provider's structured-output
    request, `json_object` inside an OpenAI `json_object` response format, false not at all
    (None: only where the provider enforces it by constrained decoding). Constraining changes a
    judge's behaviour: each sample's model event records what its request carried (Inspect's
    `response_schema` in its config, or the `json_object` format in its `extra_body`), and
    the log's task arguments and model give the mode of the whole run (`schema_mode`). A
    schema the model's API cannot carry errors the sample unsent. `task_model` is the model
    the task names, where it names one: the schema is probed on it.
    """
    schema_check = SchemaCheck()
    schema_check.probe(constrained, None if task_model is None else get_model(task_model))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        # Each sample, not once: a provider may build a new client (after a credential
        # refresh, or a new eval of the same model in judge-matrix).
        leave_retries_to_inspect(get_model())
        model = str(state.model)
        mode = schema_mode(constrained, model)
        if mode != "off":
            schema_check.refuse_unsendable(model, mode)
        try:
            if mode == "off":
                state = await generate(state)
            else:
                state = await schema_check.generate(state, generate, mode)
        # Inspect ends a sample by raising these through the solver; they are not the judge's.
        except (LimitExceededError, TerminateSampleError, JudgeUnreachable):
            raise
        except ModelRefusalError as err:
            # A refusal is the judge's own behaviour: scored as a judge failure.
            state.output = err.output
            return state
        except Exception as err:
            raise JudgeUnreachable(describe_provider_error(err)) from None
        overflow = prompt_overflow(state.output)
        if overflow is not None:
            raise JudgeUnreachable(overflow)
        return state

    return solve
