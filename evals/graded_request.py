"""How the judge is asked for its graded verdict: the `-T graded=` option, model by model.

`logprobs` asks the provider for token probabilities, and P(ungrounded) is read from them as
the judge replies (`scorers/graded.py`); `epochs` takes the verdict itself (1 or 0), which a
mean over epochs grades; `off` gives none. A provider that refuses logprobs does not stop the
run: the sample is judged again without them, and its graded score says why it has none.
"""

import re
from typing import Literal, Unpack

from inspect_ai.event import ModelEvent
from inspect_ai.log import transcript
from inspect_ai.model import GenerateConfigArgs
from inspect_ai.solver import Generate, Solver, TaskState, solver

from farejudge.evals.provider_errors import provider_text, redact_secrets
from farejudge.scorers.graded import NoGrade, p_ungrounded, record_reading
from farejudge.scorers.graded_option import GradedOption

# Alternatives asked for at each token: both of true and false are within the first two
# wherever the judge hesitates between them; the rest is room for spellings (" false", "f").
TOP_LOGPROBS = 5

# What a server says when it refuses the option (OpenAI: "logprobs is not supported with this
# model"; vLLM: "top_logprobs must be ...").
_LOGPROB_WORDS = re.compile(r"logprob", re.I)
_MAX_REFUSAL_CHARS = 200


def _is_logprob_refusal(err: BaseException) -> bool:
    _, text, status = provider_text(err)
    return status is not None and 400 <= status < 500 and bool(_LOGPROB_WORDS.search(text))


def _refusal(err: BaseException) -> str:
    _, text, status = provider_text(err)
    said = " ".join(text.split())[:_MAX_REFUSAL_CHARS]
    return redact_secrets(f"the provider refused logprobs (HTTP {status}: {said})")


@solver
def graded_generate(judge: Solver, option: GradedOption) -> Solver:
    """`judge`, its requests asking for logprobs where the sample's graded mode says so (the
    checked `option`'s mode for the sample's model, as the scorer resolves it).

    Where logprobs were asked for, the sample's metadata records what they said (P(ungrounded),
    or why there is none: a provider that refused them is not asked again). The logprobs
    themselves are then dropped from the sample (see `_drop_logprobs`). The mode itself is not
    recorded per sample: it is the same for every sample of a run, and a state change costs
    each sample of a run (`docs/performance.md`).
    """
    refused: dict[str, str] = {}

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = str(state.model)
        if option.mode(model) != "logprobs":
            return await judge(state, generate)
        refusal = refused.get(model)

        async def with_logprobs(
            state: TaskState,
            tool_calls: Literal["loop", "single", "none"] = "loop",
            **kwargs: Unpack[GenerateConfigArgs],
        ) -> TaskState:
            nonlocal refusal
            if refusal is not None:
                return await generate(state, tool_calls, **kwargs)
            asked: GenerateConfigArgs = {
                **kwargs,
                "logprobs": True,
                "top_logprobs": TOP_LOGPROBS,
            }
            try:
                return await generate(state, tool_calls, **asked)
            except Exception as err:
                if not _is_logprob_refusal(err):
                    raise
                refusal = refused[model] = _refusal(err)
                return await generate(state, tool_calls, **kwargs)

        state = await judge(state, with_logprobs)
        record_reading(
            state.metadata, NoGrade(refusal) if refusal is not None else p_ungrounded(state.output)
        )
        _drop_logprobs(state)
        return state

    return solve


def _drop_logprobs(state: TaskState) -> None:
    """Take the logprobs, once read, out of the sample's output and its model events.

    Every token's alternatives cost more than the rest of the sample: Inspect carries them
    through the solver's state diff, the model event and the condensed log, which made a
    sample of about 18 tokens with 5 alternatives each take 1.8x as long on a mock judge
    (benchmarks/bench_overhead.py). The reading is all the scorer, a re-score and the
    viewer need; an HTTP provider's raw reply, where Inspect keeps one, still has them.
    """
    for choice in state.output.choices:
        choice.logprobs = None
    for event in transcript().history.resident_events:
        if isinstance(event, ModelEvent):
            for choice in event.output.choices:
                choice.logprobs = None
