"""Benchmark the in-process GGUF provider against raw llama-cpp-python.

Prints figures only (no pass/fail):

  (a) raw `Llama.create_chat_completion` in a loop: latency and tokens/s per sample;
  (b) the same prompts through `GGUFModelAPI.generate` in one asyncio loop, and the
      ratio b/a of mean latency (the provider's overhead);
  (c) prompt processing per sample with KV-cache prefix reuse (one Llama, consecutive
      calls) against `llm.reset()` before each call, and the % of time reuse cuts;
  (d) the same cases through `inspect eval` (task, scorer, log), and its throughput
      against (a).

Each comparison runs its two sides on separate Llama instances, alternating sample by
sample, so background load on the machine hits both sides alike.

Prompts are the shipped cases rendered as the eval renders them (system message: the
version's instructions; user message: the case), unless told otherwise:

    python benchmarks/bench_gguf.py                       # the first 12 shipped cases, v3
    python benchmarks/bench_gguf.py --synthetic 8         # 8 synthetic ~250-token cases
    python benchmarks/bench_gguf.py --user-file cases.jsonl --limit 10
    python benchmarks/bench_gguf.py --limit 0             # every shipped case

Timings come from llama.cpp's own per-context counters (prompt eval vs generation).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from inspect_ai import eval as inspect_eval
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
)
from record import add_record_option, recording

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.render import render_case
from farejudge.evals.verdict_schema import BOUNDED_VERDICT_SCHEMA
from farejudge.providers.gguf import (
    GGUFModelAPI,
    generate_kwargs,
    llama_call_kwargs,
    messages_to_dicts,
)
from farejudge.providers.gguf.llama_loader import load_llama
from farejudge.providers.gguf.perf import perf_counters, reset_perf

if TYPE_CHECKING:
    from llama_cpp import Llama


_WORD_TEXT = (
    "fare pass rider senior youth transfer zone weekday weekend card reload refund "
    "station platform route express local bus train ferry shuttle monthly annual daily "
    "discount eligible income resident proof identity photo application office library "
    "online counter machine cash coin token validator tap balance expiry policy exception "
    "holiday peak offpeak midday evening overnight airport downtown harbor valley ridge "
    "county city district agency board notice effective date change increase reduced "
    "program medicare medicaid veteran student disability companion escort child infant "
    "luggage bicycle stroller accessible ramp elevator paratransit booking schedule delay"
)
_WORDS = _WORD_TEXT.split()

_SYNTHETIC_SYSTEM = (
    "You are a careful grader. You receive retrieved passages, a rider question and an "
    "assistant answer. Decide whether every factual claim in the answer is supported by "
    "the passages. Reply with a JSON object with keys grounded, unsupported_claims and "
    "reasoning. "
)


@dataclass(frozen=True)
class Settings:
    model_path: Path
    n_ctx: int
    n_threads: int
    n_threads_batch: int
    extra_bufts: bool

    def llama_args(self) -> dict[str, Any]:
        return {
            "n_ctx": self.n_ctx,
            "n_threads": self.n_threads,
            "n_threads_batch": self.n_threads_batch,
        }


@dataclass
class Sample:
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    perf: dict[str, float] | None
    text: str


def synthetic_users(n: int, seed: int = 0) -> list[str]:
    """N user messages of ~250 tokens whose token sequences diverge from the first word."""
    messages = []
    for i in range(n):
        rng = random.Random(seed * 100_003 + i)
        words = [rng.choice(_WORDS) for _ in range(185)]
        messages.append(f"Case {rng.randrange(10**6):06d}: " + " ".join(words))
    return messages


def synthetic_system(seed: int = 0) -> str:
    """A ~480-token instruction for when no system file is available."""
    rng = random.Random(seed)
    rules = [
        f"Rule {i + 1}: " + " ".join(rng.choice(_WORDS) for _ in range(28)) + "." for i in range(14)
    ]
    return _SYNTHETIC_SYSTEM + "\n".join(rules)


def read_users(path: Path) -> list[str]:
    """JSONL, one user message a line: a JSON string, or an object with "content"/"user"."""
    users = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        record = json.loads(line)
        if isinstance(record, str):
            users.append(record)
        elif isinstance(record, dict) and isinstance(
            record.get("content", record.get("user")), str
        ):
            users.append(cast(str, record.get("content", record.get("user"))))
        else:
            raise SystemExit(f"{path}:{n}: expected a JSON string or an object with 'content'")
    return users


def shipped_cases(limit: int) -> list[Case]:
    cases = load_cases(DEFAULT_CASES)
    return cases[:limit] if limit else cases


def load_prompts(args: argparse.Namespace) -> tuple[str, list[str], str]:
    """The shipped cases rendered exactly as the eval renders them, unless told otherwise."""
    if args.synthetic:
        return synthetic_system(args.seed), synthetic_users(args.synthetic, args.seed), "synthetic"
    version = load_prompt_version(args.prompt_version)
    system = version.instructions
    if args.system_file:
        system = Path(args.system_file).read_text(encoding="utf-8").removesuffix("\n")
    if args.user_file:
        users = read_users(Path(args.user_file))
        users = users[: args.limit] if args.limit else users
        return system, users, f"users={args.user_file}"
    cases = shipped_cases(args.limit)
    users = [render_case(c, version.render) for c in cases]
    return system, users, f"shipped cases rendered for {version.name}"


def run_eval(args: argparse.Namespace, settings: Settings, n: int) -> list[Sample]:
    """(d) the same cases through `inspect eval`: the task's solver, scorer and logging too."""
    (log,) = inspect_eval(
        judge_groundedness(prompt_version=args.prompt_version),
        model=f"gguf/{args.model}",
        model_args={**settings.llama_args(), "extra_bufts": settings.extra_bufts},
        limit=n,
        max_tokens=args.max_tokens,
        log_dir=str(Path(args.eval_log_dir)),
        display="none",
    )
    samples: list[Sample] = []
    for sample in log.samples or []:
        usage = sample.output.usage
        samples.append(
            Sample(
                latency_s=float(sample.working_time or 0.0),
                prompt_tokens=usage.input_tokens if usage else 0,
                completion_tokens=usage.output_tokens if usage else 0,
                perf=(sample.output.metadata or {}).get("llama_cpp_perf"),
                text=sample.output.completion,
            )
        )
    return samples


def conversation(system: str, user: str) -> list[ChatMessage]:
    return [ChatMessageSystem(content=system), ChatMessageUser(content=user)]


def new_llama(settings: Settings) -> Llama:
    # Loaded as the provider loads it, extra buffer types and all.
    return load_llama(
        settings.model_path,
        extra_bufts=settings.extra_bufts,
        verbose=False,
        **settings.llama_args(),
    )


def warm_up(llm: Llama) -> None:
    # The first large decode after loading pays for page faults and compute-buffer setup
    # (docs/performance.md#the-embedded-judge-on-2-cores), so warm up with a prompt of similar
    # size. It shares nothing with the samples beyond the chat template's first tokens,
    # so it does not prime the KV cache with the instructions.
    filler = " ".join(random.Random(-1).choice(_WORDS) for _ in range(450))
    llm.create_chat_completion(
        messages=[{"role": "user", "content": f"Warm-up. {filler}"}], max_tokens=8
    )


def raw_call(llm: Llama, messages: list[dict[str, str]], kwargs: dict[str, Any]) -> Sample:
    # llama.cpp's counters, read as the provider reads them, so (a) and (b) compare alike.
    reset_perf(llm)
    start = time.perf_counter()
    response = cast(
        "dict[str, Any]",
        llm.create_chat_completion(
            messages=messages,  # type: ignore[arg-type]
            stream=False,
            # Same request as the provider sends (schema -> strict-string grammar), so
            # b/a compares the call paths and not two different grammars.
            **llama_call_kwargs(kwargs),
        ),
    )
    latency = time.perf_counter() - start
    usage = response["usage"]
    return Sample(
        latency_s=latency,
        prompt_tokens=int(usage["prompt_tokens"]),
        completion_tokens=int(usage["completion_tokens"]),
        perf=perf_counters(llm),
        text=str(response["choices"][0]["message"]["content"] or ""),
    )


def run_generation(
    settings: Settings, prompts: Sequence[list[ChatMessage]], config: GenerateConfig
) -> tuple[list[Sample], list[Sample]]:
    """(a) raw calls and (b) provider calls, each on its own Llama, alternating per sample.

    Interleaving makes both paths see the same background load, so b/a measures the
    provider and not whatever else the machine was doing at the time.
    """
    llm = new_llama(settings)
    api = GGUFModelAPI(
        "bench",
        model_path=str(settings.model_path),
        extra_bufts=settings.extra_bufts,
        **settings.llama_args(),
    )
    kwargs = generate_kwargs(config)

    async def provider_call(prompt: list[ChatMessage]) -> Sample:
        start = time.perf_counter()
        output = (await api.generate(prompt, [], "auto", config))[0]
        latency = time.perf_counter() - start
        assert isinstance(output, ModelOutput)
        usage = output.usage
        return Sample(
            latency_s=latency,
            prompt_tokens=usage.input_tokens if usage else 0,
            completion_tokens=usage.output_tokens if usage else 0,
            perf=(output.metadata or {}).get("llama_cpp_perf"),
            text=output.completion,
        )

    async def run() -> tuple[list[Sample], list[Sample]]:
        raw: list[Sample] = []
        prov: list[Sample] = []
        for i, prompt in enumerate(prompts):
            # Blocking the loop for the raw call is fine: nothing else runs on it.
            if i % 2 == 0:
                raw.append(raw_call(llm, messages_to_dicts(prompt), kwargs))
                prov.append(await provider_call(prompt))
            else:
                prov.append(await provider_call(prompt))
                raw.append(raw_call(llm, messages_to_dicts(prompt), kwargs))
        return raw, prov

    try:
        warm_up(llm)
        warm_up(api.llm)
        return asyncio.run(run())
    finally:
        llm.close()
        api.close()


def run_prefix(
    settings: Settings, prompts: Sequence[list[ChatMessage]]
) -> tuple[list[Sample], list[Sample]]:
    """Prompt processing only (max_tokens=1) on two Llamas, alternating per sample: one
    keeps its KV cache between calls, the other is reset() before each call."""
    keep, fresh = new_llama(settings), new_llama(settings)
    kwargs = {"max_tokens": 1, "temperature": 0.0}
    reused: list[Sample] = []
    reset: list[Sample] = []
    try:
        warm_up(keep)
        warm_up(fresh)
        for i, prompt in enumerate(prompts):
            messages = messages_to_dicts(prompt)
            for which in ("keep", "reset") if i % 2 == 0 else ("reset", "keep"):
                if which == "keep":
                    reused.append(raw_call(keep, messages, kwargs))
                else:
                    fresh.reset()  # type: ignore[no-untyped-call]
                    reset.append(raw_call(fresh, messages, kwargs))
        return reused, reset
    finally:
        keep.close()
        fresh.close()


def pp_ms(sample: Sample) -> float:
    """Prompt-processing time; falls back to wall time of a max_tokens=1 call."""
    if sample.perf is None:
        return sample.latency_s * 1000
    # A one-token remainder (an exact cache hit replays its last token) is a single-token
    # batch, which llama.cpp counts as eval, not prompt eval; in a max_tokens=1 call there
    # is no other eval to count, so the sum is the prompt's processing time.
    return sample.perf["prompt_eval_ms"] + sample.perf["eval_ms"]


def tokens_per_s(sample: Sample) -> float:
    return sample.completion_tokens / sample.latency_s if sample.latency_s else 0.0


def decode_tps(sample: Sample) -> float | None:
    if not sample.perf or not sample.perf["eval_ms"]:
        return None
    return sample.perf["eval_tokens"] / (sample.perf["eval_ms"] / 1000)


def valid_json(text: str) -> bool:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return False
    return True


def print_generation(title: str, samples: list[Sample]) -> None:
    print(f"\n{title}")
    print(
        f"{'#':>3} {'prompt':>7} {'pp_tok':>7} {'pp_ms':>8} {'gen':>5} {'gen_ms':>8} "
        f"{'latency_s':>9} {'tok/s':>6} {'dec_tok/s':>9} json"
    )
    for i, s in enumerate(samples, start=1):
        perf = s.perf or {}
        dec = decode_tps(s)
        print(
            f"{i:>3} {s.prompt_tokens:>7} {int(perf.get('prompt_eval_tokens', -1)):>7} "
            f"{perf.get('prompt_eval_ms', float('nan')):>8.1f} {s.completion_tokens:>5} "
            f"{perf.get('eval_ms', float('nan')):>8.1f} {s.latency_s:>9.3f} "
            f"{tokens_per_s(s):>6.1f} {dec if dec is not None else float('nan'):>9.1f} "
            f"{'ok' if valid_json(s.text) else 'INVALID'}"
        )
    lat = [s.latency_s for s in samples]
    print(
        f"    mean latency {statistics.mean(lat):.3f} s, median {statistics.median(lat):.3f} s, "
        f"mean tok/s {statistics.mean(tokens_per_s(s) for s in samples):.1f}, "
        f"valid JSON {sum(valid_json(s.text) for s in samples)}/{len(samples)}"
    )


def print_prefix(reused: list[Sample], reset: list[Sample]) -> None:
    print("\n(c) prompt processing per sample, max_tokens=1: KV prefix reuse vs reset()")
    print(
        f"{'#':>3} {'prompt':>7} {'reuse_tok':>9} {'reuse_ms':>9} {'reset_tok':>9} {'reset_ms':>9}"
    )
    for i, (a, b) in enumerate(zip(reused, reset, strict=True), start=1):
        print(
            f"{i:>3} {a.prompt_tokens:>7} {int((a.perf or {}).get('prompt_eval_tokens', -1)):>9} "
            f"{pp_ms(a):>9.1f} {int((b.perf or {}).get('prompt_eval_tokens', -1)):>9} "
            f"{pp_ms(b):>9.1f}"
        )
    # Sample 1 has nothing to reuse (the warm-up prompt shares only the template
    # header), so the steady-state figure leaves it out.
    for label, lo in (("all samples", 0), ("samples 2..N", 1)):
        if len(reused) <= lo:
            continue
        with_reuse = statistics.mean(pp_ms(s) for s in reused[lo:])
        without = statistics.mean(pp_ms(s) for s in reset[lo:])
        cut = 100 * (1 - with_reuse / without) if without else float("nan")
        print(
            f"    {label}: {with_reuse:.1f} ms with reuse vs {without:.1f} ms with reset "
            f"-> {cut:.1f}% cut"
        )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--model", default="smollm2-135m", help="known model name")
    parser.add_argument("--model-path", default=None, help="any GGUF file (overrides --model)")
    parser.add_argument("--prompt-version", default="v3")
    parser.add_argument("--system-file", default="", help="instructions (default: the version's)")
    parser.add_argument("--user-file", default="", help="JSONL of user messages")
    parser.add_argument("--synthetic", type=int, default=0, metavar="N")
    parser.add_argument("--limit", type=int, default=12, help="first N cases (0: all)")
    parser.add_argument("--max-tokens", type=int, default=512)
    parser.add_argument("--eval-log-dir", default="logs/bench")
    parser.add_argument("--no-schema", action="store_true", help="unconstrained decoding")
    parser.add_argument("--n-ctx", type=int, default=None, help="default: the provider's, 4096")
    parser.add_argument(
        "--n-threads", type=int, default=None, help="decode threads (default: half the CPUs)"
    )
    parser.add_argument(
        "--n-threads-batch",
        type=int,
        default=None,
        help="prompt-processing threads (default: all CPUs)",
    )
    parser.add_argument(
        "--extra-bufts",
        action="store_true",
        help="llama.cpp's extra buffer types on, as -M extra_bufts=true (default: off)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--skip", default="", help="comma list of sections to skip: generate,prefix,eval"
    )
    add_record_option(parser)
    args = parser.parse_args(argv)

    # The provider resolves the model and fills in its defaults (it loads nothing yet), so
    # the raw loop runs the same file with the same settings as the provider does.
    provider = GGUFModelAPI(
        args.model,
        model_path=args.model_path,
        n_ctx=args.n_ctx,
        n_threads=args.n_threads,
        n_threads_batch=args.n_threads_batch,
        extra_bufts=args.extra_bufts,
    )
    settings = Settings(
        provider.model_path,
        provider.n_ctx,
        provider.n_threads,
        provider.n_threads_batch,
        provider.extra_bufts,
    )
    system, users, source = load_prompts(args)
    prompts = [conversation(system, u) for u in users]
    config = GenerateConfig(
        max_tokens=args.max_tokens,
        temperature=0.0,
        seed=args.seed,
        # The provider applies a packaged model's sampling defaults; the raw loop must too.
        extra_body={k: v for k, v in provider.sampling_defaults.items() if k == "repeat_penalty"}
        or None,
        response_schema=None if args.no_schema else BOUNDED_VERDICT_SCHEMA,
    )
    skip = set(filter(None, args.skip.split(",")))
    print(
        f"model={settings.model_path.name} n_ctx={settings.n_ctx} "
        f"n_threads={settings.n_threads} n_threads_batch={settings.n_threads_batch} "
        f"extra_bufts={'on' if settings.extra_bufts else 'off'} "
        f"samples={len(prompts)} max_tokens={args.max_tokens} "
        f"schema={'off' if args.no_schema else 'verdict'} {source}"
    )

    if "generate" not in skip:
        raw, prov = run_generation(settings, prompts, config)
        print_generation("(a) raw Llama.create_chat_completion, consecutive calls", raw)
        print_generation("(b) GGUFModelAPI.generate in one asyncio loop", prov)
        ratio = statistics.mean(s.latency_s for s in prov) / statistics.mean(
            s.latency_s for s in raw
        )
        # The median ratio of per-sample pairs shrugs off a sample that another process
        # happened to slow down on one side only.
        paired = statistics.median(
            b.latency_s / a.latency_s for a, b in zip(raw, prov, strict=True)
        )
        same = sum(a.text == b.text for a, b in zip(raw, prov, strict=True))
        print(
            f"    ratio b/a of mean latency: {ratio:.3f}, median of per-sample b/a: "
            f"{paired:.3f} (identical replies {same}/{len(raw)})"
        )
    if "prefix" not in skip:
        reused, reset = run_prefix(settings, prompts)
        print_prefix(reused, reset)
    if "eval" not in skip and not (args.synthetic or args.user_file or args.model_path):
        started = time.perf_counter()
        through_eval = run_eval(args, settings, len(prompts))
        wall = time.perf_counter() - started
        print_generation(
            "(d) the same cases through inspect eval (working time per sample)", through_eval
        )
        if "generate" not in skip:
            raw_tps = sum(s.completion_tokens for s in raw) / sum(s.latency_s for s in raw)
            eval_tps = sum(s.completion_tokens for s in through_eval) / sum(
                s.latency_s for s in through_eval
            )
            print(
                f"    throughput d/a: {eval_tps:.1f} / {raw_tps:.1f} tok/s = "
                f"{eval_tps / raw_tps:.3f}; eval wall {wall:.1f} s for {len(through_eval)} "
                "samples, start-up and model load included"
            )
    # Other processes on a small box slow llama.cpp a lot (its threads spin-wait); the
    # load average tells a reader whether the figures above were taken on a quiet machine.
    print("\nload average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))


if __name__ == "__main__":
    with recording("gguf"):
        main()
