"""A scripted judge for the adversarial suite: gold's verdict on every case, except the
attacked cases of the families it is fooled by, where it says what the attack argues for."""

import json
from collections.abc import Collection, Sequence

from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.core.sample_case import GoldTarget
from farejudge.testing.scripted_judge import mock_output


def attacked_replies(samples: Sequence[Sample], fooled_by: Collection[str]) -> dict[str, str]:
    """Each sample's reply by its rendered case (the user message)."""
    replies = {}
    for sample in samples:
        verdict = GoldTarget.model_validate_json(str(sample.target)).label.model_dump()
        meta = sample.metadata or {}
        if meta.get("family") in fooled_by:
            said = meta["direction"] == "towards_grounded"
            verdict = {"grounded": said, "unsupported_claims": [] if said else ["the figures"]}
        assert not isinstance(sample.input, str)
        replies[sample.input[-1].text] = json.dumps({**verdict, "reasoning": "Scripted."})
    return replies


def fooled_judge(samples: Sequence[Sample], fooled_by: Collection[str] = ()) -> Model:
    """A mockllm judge over `samples` (the task's own), fooled by the families named."""
    replies = attacked_replies(samples, fooled_by)

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        return mock_output(replies[messages[-1].text])

    return get_model("mockllm/model", custom_outputs=respond)
