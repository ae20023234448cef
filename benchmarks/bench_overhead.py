"""The task's cost per sample next to Inspect's own floor, side by side in one process.

    python benchmarks/bench_overhead.py                 # 2,000 synthetic cases, 3 rounds
    python benchmarks/bench_overhead.py --cases 500 --rounds 1
    python benchmarks/bench_overhead.py --suite metamorphic --cases 500

Both runs judge the same rendered v3 prompts on the same mockllm judge, which answers
each case with its gold verdict: the floor is a bare `Task(dataset, generate(), match())`
over the prompts, the task is `judge_groundedness` (load and validate cases, render,
generate, parse, score, review). The task runs twice more on a judge that returns each
token's logprobs with 5 alternatives when asked (as a provider does): `-T graded=off` and
`-T graded=logprobs`, whose ratio is what reading the graded score from logprobs costs a
sample (asking for them, the provider building them, reading P(ungrounded), dropping them
before the log). Rounds alternate the runs, and the best round of each counts, because a
shared 2-core machine slows some rounds at random (every other round runs them backwards);
the median of the rounds' own ratios is printed beside the ratio of the bests. Prints figures
only.
"""

import argparse
import gc
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Logprob,
    Logprobs,
    Model,
    ModelOutput,
    TopLogprob,
    get_model,
)
from inspect_ai.scorer import match
from inspect_ai.solver import generate
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.evals.dataset import load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import SUITES, suite_samples
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import (
    case_id_shown,
    gold_reply,
    synthetic_judge,
    write_cases,
)

# As many samples in flight as the load run uses per thousand: the figure is per-sample
# overhead, not waiting on a connection limit.
MAX_SAMPLES = 200
# Roughly how a BPE tokenizer cuts a JSON verdict: words with their leading space, and
# punctuation on its own.
_TOKENS = re.compile(r" ?\w+| ?[^\w\s]+|\s+")
TOP_ALTERNATIVES = 5


def floor_task(cases_file: Path, suite: str) -> Task:
    """Inspect's own floor: the same prompts, generate, and an exact-match scorer."""
    rendered, _ = suite_samples(load_cases(cases_file), suite, load_prompt_version("v3"))
    samples = [
        # A derived synthetic case keeps its parent's question, so the judge answers by that.
        Sample(id=s.id, input=s.input, target=gold_reply(str(s.id).split("~")[0]))
        for s in rendered
    ]
    return Task(dataset=MemoryDataset(samples), solver=generate(), scorer=match())


def with_logprobs(reply: str) -> ModelOutput:
    """The gold reply as a provider returns it when asked for logprobs."""
    output = mock_output(reply)
    tokens = _TOKENS.findall(reply)
    output.choices[0].logprobs = Logprobs(
        content=[
            Logprob(
                token=token,
                logprob=-0.1,
                bytes=list(token.encode()),
                top_logprobs=[
                    TopLogprob(token=alt, logprob=-0.1 - i, bytes=list(alt.encode()))
                    for i, alt in enumerate([token, " true", " false", "true", "false"])
                ][:TOP_ALTERNATIVES],
            )
            for token in tokens
        ]
    )
    return output


def logprob_judge() -> Model:
    """The synthetic judge, returning logprobs where the request asks for them."""

    def respond(
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        reply = gold_reply(case_id_shown(messages))
        return with_logprobs(reply) if config.logprobs else mock_output(reply)

    return get_model("mockllm/model", custom_outputs=respond)


def timed(make_task: Callable[[], Task], log_dir: Path, model: Model | None = None) -> float:
    # The garbage of the run before is not this run's cost.
    gc.collect()
    start = time.perf_counter()
    (log,) = eval(
        make_task(),
        model=model or synthetic_judge(),
        log_dir=str(log_dir),
        display="none",
        max_samples=MAX_SAMPLES,
        max_connections=MAX_SAMPLES,
    )
    elapsed = time.perf_counter() - start
    assert log.status == "success", log.error
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--suite", choices=SUITES, default="gold")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        cases_file = Path(work) / "cases.jsonl"
        write_cases(cases_file, args.cases)

        def task(graded: str = "auto") -> Callable[[], Task]:
            return lambda: judge_groundedness(
                prompt_version="v3", dataset=str(cases_file), suite=args.suite, graded=graded
            )

        runs: dict[str, tuple[Callable[[], Task], Callable[[], Model] | None]] = {
            "floor: Task(generate(), match())": (
                lambda: floor_task(cases_file, args.suite),
                None,
            ),
            "judge_groundedness": (task(), None),
            "graded=off, logprob judge": (task("off"), logprob_judge),
            "graded=logprobs, logprob judge": (task("logprobs"), logprob_judge),
        }
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        for round_ in range(args.rounds):
            # Every other round backwards: no run always follows the same one.
            order = list(runs) if round_ % 2 == 0 else list(reversed(runs))
            for name in order:
                make, judge = runs[name]
                seconds[name].append(timed(make, Path(work) / "logs", judge() if judge else None))
                print(f"round {round_ + 1}: {name}: {seconds[name][-1]:.1f} s")
    print(f"\n{args.cases} cases, suite {args.suite}, best of {args.rounds} rounds each")
    for name, times in seconds.items():
        print(f"{name:34} {min(times):6.1f} s  {1000 * min(times) / args.cases:5.1f} ms/case")
    for label, (over, under), target in (
        ("ratio", ("judge_groundedness", "floor: Task(generate(), match())"), 1.2),
        (
            "graded=logprobs / graded=off",
            ("graded=logprobs, logprob judge", "graded=off, logprob judge"),
            1.05,
        ),
    ):
        rounds = [a / b for a, b in zip(seconds[over], seconds[under], strict=True)]
        print(
            f"{label:34} {min(seconds[over]) / min(seconds[under]):6.2f}x best of each, "
            f"{statistics.median(rounds):.2f}x median of the rounds' ratios "
            f"(target at most {target}x)"
        )


if __name__ == "__main__":
    main()
