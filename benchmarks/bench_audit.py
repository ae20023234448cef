"""Time `judge-audit estimate` over a period of 1,000,000 judged answers, read from its logs.

Writes the period unless --log-dir already holds it, then runs the command in a subprocess
and prints figures only (no pass/fail):

    python benchmarks/bench_audit.py                         # 1,000,000 answers in 4 shards
    python benchmarks/bench_audit.py --answers 100000 --shards 1 --log-dir /tmp/bench-audit

The period's logs are what a sharded run writes (`-T shard=i/N`, a log per shard): a base run
of the production task through Inspect's `eval()` on a scripted mockllm judge over synthetic
drafts, each log grown from it (testing/production_runs.py) with every sample as the run wrote
it (messages, events, summary) under a draft id and content hash of its own, and the whole
period's population hash in every shard's header. The sample is 1,000 drafts drawn uniformly;
their labels are the synthetic truth of the drafts they copy, so the judge is right on most.

Writing time is printed apart. Wall time is the whole command, interpreter start-up and
imports included; peak memory is the command's own maximum resident set, "with workers" the
largest sum of its and its worker processes' resident sets (an upper bound: each forked worker
counts the imports it shares with the command again), and "proportional" the largest sum of
their proportional set sizes, what they hold together (benchmarks/measure.py).

Targets on a 2-core machine: 1,000,000 answers in 60 s or less with at most 1.5 GB peak.
"""

import argparse
import datetime
import multiprocessing
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from measure import run_measured
from record import add_record_option, recording

BASE_DRAFTS = 600
"""Drafts of the base run: each grown draft copies one of them."""
LABELS = 1_000
SEED = 1


def _base(folder: Path) -> str:
    from farejudge.testing.production_runs import base_run

    return str(base_run(folder, BASE_DRAFTS).location)


def _grow(
    base: str,
    path: Path,
    drafts: list[tuple[str, str]],
    total: int,
    hashed: str,
    shard: str | None,
) -> None:
    from farejudge.testing.production_runs import grow_production_log

    grow_production_log(base, path, drafts, total, hashed, shard)


def _shards(population: dict[str, str], count: int) -> list[list[tuple[str, str]]]:
    """The drafts of each shard, as `-T shard=i/N` splits them."""
    from farejudge.core.shards import Shard

    shards = [Shard(i, count) for i in range(count)]
    split: list[list[tuple[str, str]]] = [[] for _ in shards]
    for draft, digest in population.items():
        index = next(i for i, shard in enumerate(shards) if shard.holds_family(draft))
        split[index].append((draft, digest))
    return split


def write_period(
    root: Path, answers: int, shards: int
) -> tuple[Path, dict[str, str], dict[str, int], str]:
    """The period's logs (written unless there), its population, each draft's place in its
    shard's log, and the base log."""
    from farejudge.core.population import population_hash
    from farejudge.testing.production_runs import grown_population

    population = grown_population(answers)
    logs = root / f"logs-{answers}-{shards}"
    base_logs = sorted((root / "base" / "logs").glob("*.eval"))
    context = multiprocessing.get_context("spawn")
    if not base_logs:
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            base = pool.submit(_base, root / "base").result()
        print(f"  (ran the task over {BASE_DRAFTS} drafts in {time.perf_counter() - start:.0f} s)")
    else:
        base = str(base_logs[0])
    split = _shards(population, shards)
    places = {draft: k for drafts in split for k, (draft, _) in enumerate(drafts)}
    if len(list(logs.glob("*.eval"))) != shards:
        shutil.rmtree(logs, ignore_errors=True)
        hashed = population_hash(population)
        start = time.perf_counter()
        # In child processes: writing grows a process by gigabytes (benchmarks/bench_compare.py).
        with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
            futures = [
                pool.submit(
                    _grow,
                    base,
                    logs / f"shard-{i}-of-{shards}.eval",
                    drafts,
                    answers,
                    hashed,
                    None if shards == 1 else f"{i}/{shards}",
                )
                for i, drafts in enumerate(split)
            ]
            for future in futures:
                future.result()
        size = sum(p.stat().st_size for p in logs.glob("*.eval")) / 1e9
        print(f"  (wrote {shards} log(s), {size:.1f} GB, in {time.perf_counter() - start:.0f} s)")
    return logs, population, places, base


def write_sample(
    work: Path, population: dict[str, str], places: dict[str, int], base: str
) -> tuple[Path, Path]:
    """sample.json (1,000 drafts drawn uniformly) and a labels file for them."""
    from inspect_ai.log import read_eval_log_samples

    from farejudge.audit.stats.design import draw_uniform
    from farejudge.labelling.label_file import append_label
    from farejudge.labelling.records import Label, Span
    from farejudge.testing.production_runs import synthetic_draft, ungrounded

    sample = draw_uniform(population, LABELS, SEED)
    sample_file = work / "sample.json"
    sample_file.write_text(sample.model_dump_json(), encoding="utf-8")
    # The k-th draft of a shard's log copies the base samples in turn, in the order read.
    index = {synthetic_draft(i).id: i for i in range(BASE_DRAFTS)}
    copied = [index[str(s.id)] for s in read_eval_log_samples(base)]
    labels = work / "labels.jsonl"
    for draft in sample.ids:
        truth = ungrounded(copied[places[draft] % len(copied)])
        append_label(
            labels,
            Label(
                case_id=draft,
                content_sha256=population[draft],
                annotator="bench",
                grounded=not truth,
                spans=[Span(start=0, end=4, text="fare")] if truth else [],
                reason="synthetic truth",
                labelled_at=datetime.datetime.now(datetime.UTC),
            ),
        )
    return sample_file, labels


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--answers", type=int, default=1_000_000, help="the period's answers")
    parser.add_argument("--shards", type=int, default=4, help="logs the period is judged in")
    parser.add_argument("--log-dir", type=Path, help="reuse or write the logs here")
    parser.add_argument("--repeat", type=int, default=1, help="timed runs")
    add_record_option(parser)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="bench-audit-"))
    root = args.log_dir or scratch
    try:
        print(f"period: {args.answers:,} answers in {args.shards} shard log(s)")
        logs, population, places, base = write_period(root, args.answers, args.shards)
        sample, labels = write_sample(scratch, population, places, base)
        command = [
            sys.executable,
            "-c",
            "from farejudge.audit.cli import main; raise SystemExit(main())",
            "estimate",
            str(logs),
            "--sample",
            str(sample),
            "--labels",
            str(labels),
            "--period",
            "bench",
            "--out",
            str(scratch / "audit"),
            "--quiet",
        ]
        print(
            f"{'answers':>10} {'labels':>7} {'wall s':>8} {'peak MB':>8} {'with workers':>12} "
            f"{'proportional':>12} {'exit':>5}"
        )
        for _ in range(args.repeat):
            measured = run_measured(command)
            print(
                f"{args.answers:>10,} {LABELS:>7,} {measured.wall:>8.1f} {measured.peak:>8.0f} "
                f"{measured.with_workers:>12.0f} {measured.proportional:>12.0f} "
                f"{measured.code:>5}",
                flush=True,
            )
        summary = [line for line in measured.stderr.splitlines() if not line.startswith("audit:")]
        print("  " + "\n  ".join(summary[:1]))
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    with recording("audit"):
        main()
