"""Judge runs at any size whose logs are what a run writes: messages, events and all.

A base run is the task itself through Inspect's `eval()`: copies of the shipped cases, each
with its own id, judged by a scripted mockllm judge (right, wrong or no verdict per case and
version, as `synthetic_logs.outcome` says). Running the task is too slow for 100,000 cases a
version (docs/performance.md#judge-compare-at-scale), so `grow_log` repeats the base run's
samples (read with Inspect's log API) under new ids: the sample, its summary and the eval
metadata's content hash of each case are those the task gives a case with that id, the rest
as the run wrote it.
"""

import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import (
    EvalLog,
    read_eval_log,
    read_eval_log_sample_summaries,
    read_eval_log_samples,
)
from inspect_ai.model import ModelUsage
from shortuuid import uuid

from farejudge.core.case_schema import Case
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.fingerprint import case_hash, case_set_hash
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.scripted_judge import scripted_judge
from farejudge.testing.scripted_runs import replies
from farejudge.testing.synthetic_logs import outcome


def copies(cases: Sequence[Case], count: int) -> list[Case]:
    """`count` cases: the given ones over and over, copy k of a case with id `<id>-<k>`."""
    return [
        cases[i % len(cases)].model_copy(
            update={"id": f"{cases[i % len(cases)].id}-{i // len(cases)}"}
        )
        for i in range(count)
    ]


def write_case_file(path: Path, cases: Sequence[Case]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(case.model_dump_json() + "\n" for case in cases), encoding="utf-8")


def base_runs(
    folder: Path,
    copies_each: int,
    versions: Sequence[str] = ("v1", "v2", "v3"),
    model: str = "mockllm/judge",
) -> list[EvalLog]:
    """The task run for each version over `copies_each` copies of every shipped case: one
    log per version under `folder`/logs, the case file beside it."""
    shipped = load_cases(DEFAULT_CASES)
    cases_file = folder / "cases.jsonl"
    write_case_file(cases_file, copies(shipped, len(shipped) * copies_each))
    # Scripted on the shipped cases: a copy shows the judge the same prompt as its original.
    logs = []
    for version in versions:
        script = {case.id: outcome(version, model, case.id) for case in shipped}
        (log,) = eval(
            judge_groundedness(prompt_version=version, dataset=str(cases_file)),
            model=scripted_judge(shipped, replies(script), name=model),
            log_dir=str(folder / "logs"),
            display="none",
        )
        assert log.status == "success", log.error
        logs.append(log)
    return logs


def scaled(usage: ModelUsage, factor: float) -> ModelUsage:
    return usage.model_copy(
        update={
            "input_tokens": round(usage.input_tokens * factor),
            "output_tokens": round(usage.output_tokens * factor),
            "total_tokens": round(usage.total_tokens * factor),
        }
    )


def renamed(text: str, renames: dict[str, str]) -> str:
    """`text` (JSON) with each quoted string of `renames` replaced: ids and uuids are whole
    JSON strings, so a case text holding the same characters is left as it is."""
    for old, new in renames.items():
        text = text.replace(f'"{old}"', f'"{new}"')
    return text


def grow_log(base: str, path: Path, count: int) -> None:
    """The run of the log at `base` (a `base_runs` log) as if given `count` copies of the
    shipped cases: a .eval log at `path` laid out as Inspect lays out a finished run's log."""
    shipped = {case.id: case for case in load_cases(DEFAULT_CASES)}
    header = read_eval_log(base, header_only=True)
    summaries = {(s.id, s.epoch): s for s in read_eval_log_sample_summaries(base)}
    # Each base sample as written, once: a copy is its text with the id and uuid replaced.
    texts = [
        (
            str(sample.id),
            sample.uuid,
            sample.model_dump_json(),
            summaries[(sample.id, sample.epoch)].model_dump_json(),
        )
        for sample in read_eval_log_samples(base)
    ]
    # In blocks of one copy of every case, so each block of `count` has every case once.
    texts.sort(key=lambda text: _copy_number(text[0]))
    assert len(texts) % len(shipped) == 0, "a base run judges whole copies of the cases"
    hashes: dict[str, str] = {}
    summary_texts: list[str] = []
    zstd = zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zstd) as archive:
        for i in range(count):
            old_id, old_uuid, sample_text, summary_text = texts[i % len(texts)]
            original = old_id.rpartition("-")[0]
            new_id = f"{original}-{i // len(shipped)}"
            renames = {old_id: new_id, **({old_uuid: uuid()} if old_uuid else {})}
            archive.writestr(f"samples/{new_id}_epoch_1.json", renamed(sample_text, renames))
            summary_texts.append(renamed(summary_text, renames))
            hashes[new_id] = case_hash(shipped[original].model_copy(update={"id": new_id}))
        archive.writestr("summaries.json", f"[{','.join(summary_texts)}]")
        archive.writestr("reductions.json", "[]")
        metadata = {"case_sha256": hashes, "case_set_sha256": case_set_hash(hashes)}
        archive.writestr(
            "header.json", grown_header(header, list(hashes), metadata).model_dump_json()
        )


def _copy_number(sample_id: str) -> tuple[int, str]:
    original, _, k = sample_id.rpartition("-")
    return int(k), original


def grown_header(header: EvalLog, ids: list[str], metadata: dict[str, Any]) -> EvalLog:
    """The header of a log grown from `header`'s run to the samples `ids`, its eval metadata
    updated with `metadata`."""
    n = len(ids)
    assert header.results is not None and header.eval.metadata is not None
    factor = n / header.results.total_samples
    spec = header.eval.model_copy(
        update={
            "eval_id": uuid(),
            "run_id": uuid(),
            "dataset": header.eval.dataset.model_copy(update={"samples": n, "sample_ids": ids}),
            "metadata": {**header.eval.metadata, **metadata},
        }
    )
    return header.model_copy(
        update={
            "eval": spec,
            "results": header.results.model_copy(
                update={"total_samples": n, "completed_samples": n}
            ),
            "stats": header.stats.model_copy(
                update={
                    "model_usage": {
                        model: scaled(usage, factor)
                        for model, usage in header.stats.model_usage.items()
                    }
                }
            ),
            "samples": None,
            "reductions": None,
            "location": "",
        }
    )
