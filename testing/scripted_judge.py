"""A scripted judge on mockllm: it finds which case it is being shown and replies as told."""

import json
from collections.abc import Callable, Iterable

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.case_schema import Case
from farejudge.core.escaping import escape


def mock_output(text: str, stop_reason: str = "stop") -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", text, stop_reason=stop_reason)  # type: ignore[arg-type]
    # With usage set, mockllm does not fetch a tokenizer to count tokens (no network here).
    output.usage = ModelUsage(input_tokens=700, output_tokens=60, total_tokens=760)
    return output


def echo_gold(case: Case) -> str:
    return json.dumps({**case.label.model_dump(), "reasoning": "Echoes the gold label."})


def invert_gold(case: Case) -> str:
    if case.label.grounded:
        verdict = {"grounded": False, "unsupported_claims": [case.answer[:40]]}
    else:
        verdict = {"grounded": True, "unsupported_claims": []}
    return json.dumps({**verdict, "reasoning": "Says the opposite of gold."})


def scripted_judge(
    cases: Iterable[Case],
    reply: Callable[[Case], str | ModelOutput],
    name: str = "mockllm/model",
    **model_args: object,
) -> Model:
    """A mockllm model that answers each case with `reply(case)`, whatever order samples run in:
    its text, or a whole output (one with token logprobs, say), which must carry a usage.

    `name` tells judges apart when several run in one eval set (mockllm takes any name).
    """
    known = [
        (
            [f"<assistant_answer>\n{escape(c.answer)}\n</assistant_answer>", escape(c.question)]
            + [escape(p.text) for p in c.passages],
            c,
        )
        for c in cases
    ]

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        shown = messages[-1].text
        matches = [case for parts, case in known if all(part in shown for part in parts)]
        assert len(matches) == 1, "the scripted judge could not tell which case it was shown"
        said = reply(matches[0])
        return said if isinstance(said, ModelOutput) else mock_output(said)

    return get_model(name, custom_outputs=respond)
