"""Judges to choose between: scripted error sets, prices and latencies, on synthetic cases.

Each judge is a mockllm model whose `custom_outputs` is an async function: it finds the
synthetic case it is shown by the id in its question, awaits `anyio.sleep` for the judge's
latency (so samples sleep concurrently and a run takes about one sleep, not one per case),
then replies as its script says (`farejudge.testing.scripted_runs.replies`). Every reply's
usage is 700 input and 60 output tokens (`mock_output`), so a price gives a known cost a call.

Prices go through Inspect's own `model_cost_config`, which fills each call's
`ModelUsage.total_cost` in the log. Inspect prices only the models its model database knows,
and it knows no mockllm model: `register` adds each name to it first, with no price.
"""

from collections.abc import Mapping
from pathlib import Path

import anyio
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelInfo,
    ModelOutput,
    get_model,
    get_model_info,
    set_model_info,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.evals.dataset import load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.scripted_runs import Script, replies
from farejudge.testing.synthetic_cases import case_id_shown, synthetic_case, write_cases

INPUT_TOKENS, OUTPUT_TOKENS = 700, 60
"""The usage of every reply (`mock_output`)."""


def ungrounded(k: int) -> str:
    """The k-th ungrounded synthetic case (one in three is)."""
    return f"syn-{3 * k:05d}"


def grounded(k: int) -> str:
    """The k-th grounded synthetic case."""
    index = [i for i in range(3 * k + 3) if i % 3][k]
    assert synthetic_case(index)["label"]["grounded"]
    return f"syn-{index:05d}"


def register(models: list[str]) -> None:
    """Put each mockllm name in Inspect's model database, unpriced, so a price file can price
    it. The names are the deployment tests' own, so no other test sees them."""
    for model in models:
        if get_model_info(model) is None:
            set_model_info(model, ModelInfo(organization="farejudge tests"))


def price_file(path: Path, prices: Mapping[str, tuple[float, float]]) -> Path:
    """Inspect's price file: per model, dollars per million input and output tokens."""
    lines = []
    for model, (input_price, output_price) in prices.items():
        lines += [f"{model}:", f"  input: {input_price}", f"  output: {output_price}"]
        lines += ["  input_cache_write: 0", "  input_cache_read: 0"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cost_per_call(input_price: float, output_price: float) -> float:
    return (INPUT_TOKENS * input_price + OUTPUT_TOKENS * output_price) / 1e6


def sleeping_judge(cases_file: Path, script: Script, name: str, seconds: float) -> Model:
    by_id = {case.id: case for case in load_cases(cases_file)}
    reply = replies(script)

    async def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        case = by_id[case_id_shown(messages)]
        await anyio.sleep(seconds)
        return mock_output(reply(case))

    return get_model(name, custom_outputs=respond)


AT_ONCE = 10
"""Samples in flight at once. A sample's working time is wall-clock time, so it holds the
other samples' work on the event loop as well as its own sleep, which grows with the samples
in flight (docs/performance.md#tests)."""


def run_judge(
    version: str,
    script: Script,
    cases_file: Path,
    log_dir: Path,
    model: str,
    seconds: float,
    prices: Path | None = None,
) -> EvalLog:
    """One run of the task with a sleeping scripted judge."""
    (log,) = eval(
        judge_groundedness(prompt_version=version, dataset=str(cases_file)),
        model=sleeping_judge(cases_file, script, model, seconds),
        log_dir=str(log_dir),
        display="none",
        max_connections=AT_ONCE,
        max_samples=AT_ONCE,
        model_cost_config=str(prices) if prices else None,
    )
    assert log.status == "success", log.error
    return log


def warm_up(folder: Path) -> None:
    """One case through the task, so that the measured runs' samples do not pay the first
    eval's one-time work (imports, set-up), which lands in the working time of the samples in
    flight, many times a warm sample's (docs/performance.md#tests)."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = folder / "cases.jsonl"
    write_cases(cases, 1)
    run_judge("v3", {}, cases, folder / "logs", "mockllm/deploy-warm-up", 0.0)
