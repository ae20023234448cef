"""Judge runs of synthetic cases written straight to Inspect logs, at any size, in minutes.

Running the task through mockllm, and Inspect's `write_eval_log`, each cost milliseconds a
sample (docs/performance.md#judge-compare-at-scale); a comparison of 100,000 cases a version
needs its input faster than that. Each
log here is a real run's log (the task run on three cases, for its header: spec, plan,
config) with the task's own metadata for the whole case set, and one sample per case as the
task builds it (prompt, target, metadata) scored by the task's scorer on a scripted reply.
The transcript is left out (no events): the comparison reads summaries, never transcripts.

`write_log` writes the .eval layout Inspect writes (header.json, summaries.json and a
samples/ member per sample, zstd-compressed) from Inspect's own models, without the
per-sample work of its recorder (attachment condensing, journal); tests check that Inspect
reads such a log back as it reads its own.
"""

import tempfile
import zipfile
import zlib
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalDataset, EvalLog, EvalSample
from inspect_ai.model import ChatMessageAssistant, ModelOutput, ModelUsage
from shortuuid import uuid

from farejudge.core.case_schema import Verdict
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.scorers.verdict_scorer import Gold, score_reply
from farejudge.scorers.viewer_columns import review_fields
from farejudge.testing.synthetic_cases import synthetic_judge, write_cases

SCORER = "verdict_agreement"
WRONG = {"v1": 25, "v2": 15, "v3": 10}
"""Percent of cases each version gets wrong; later versions do better."""
FAILED = 2
"""Percent of cases with no verdict, on every version."""
_USAGE = ModelUsage(input_tokens=700, output_tokens=60, total_tokens=760)


def outcome(version: str, model: str, case_id: str) -> str:
    """A deterministic right, wrong or failure for one case of one run."""
    roll = zlib.crc32(f"{version}/{model}/{case_id}".encode()) % 100
    if roll < FAILED:
        return "failure"
    return "wrong" if roll < FAILED + WRONG.get(version, 10) else "right"


def _reply(label: Verdict, how: str, answer: str) -> str:
    if how == "failure":
        return "I cannot decide."
    if how == "right":
        verdict = label
    elif label.grounded:
        verdict = Verdict(grounded=False, unsupported_claims=[answer.rstrip(".")])
    else:
        verdict = Verdict(grounded=True, unsupported_claims=[])
    return verdict.model_dump_json()


def _sample(sample: Sample, how: str, model: str) -> EvalSample:
    """One scored sample as the task logs it, its transcript aside."""
    target = str(sample.target)
    metadata = sample.metadata or {}
    gold = Gold.of_sample(sample.input, target, metadata)
    reply = _reply(gold.label, how, gold.answer)
    scored = score_reply(gold, reply)
    numbers = cast(dict[str, float], scored.value)
    value = {**numbers, **review_fields(numbers, scored.answer or "", metadata, gold.question)}
    output = ModelOutput.from_content(model, reply)
    output.usage = _USAGE
    assert not isinstance(sample.input, str)
    # Every part is validated already; validating the whole again costs a millisecond.
    return EvalSample.model_construct(
        id=sample.id or "",
        epoch=1,
        input=sample.input,
        target=target,
        metadata=metadata,
        messages=[*sample.input, ChatMessageAssistant(content=reply, model=model)],
        output=output,
        scores={SCORER: scored.model_copy(update={"value": value})},
        model_usage={model: _USAGE},
        role_usage={},
        events=[],
        attachments={},
    )


def write_log(log: EvalLog, path: Path) -> None:
    """`log` as a .eval file at `path`, laid out as Inspect lays out a finished run's log."""
    samples = log.samples or []
    header = log.model_copy(update={"samples": None, "reductions": None, "location": ""})
    # Importing inspect_ai.log gave zipfile Inspect's zstd compression.
    zstd = zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]
    with zipfile.ZipFile(path, "w", compression=zstd) as archive:
        for sample in samples:
            member = f"samples/{sample.id}_epoch_{sample.epoch}.json"
            # Deflate at level 1 for the transcripts, which the comparison never reads: a
            # zstd frame per member costs more than the sample itself.
            data = sample.model_dump_json()
            archive.writestr(member, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=1)
        summaries = ",".join(sample.summary().model_dump_json() for sample in samples)
        archive.writestr("summaries.json", f"[{summaries}]")
        archive.writestr("header.json", header.model_dump_json(exclude={"samples", "location"}))


def template_log(work: Path) -> EvalLog:
    """A real run of the task on three synthetic cases: the header every synthetic log copies."""
    cases = work / "template-cases.jsonl"
    write_cases(cases, 3)
    (log,) = eval(
        judge_groundedness(dataset=str(cases)),
        model=synthetic_judge(),
        log_dir=str(work / "template-logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def synthetic_log(
    template: EvalLog, task: Task, version: str, model: str, created: datetime
) -> EvalLog:
    """The log of `task` (the task built on the synthetic cases) judged by a scripted judge."""
    dataset = list(task.dataset)
    samples = [_sample(s, outcome(version, model, str(s.id)), model) for s in dataset]
    n = len(samples)
    spec = template.eval.model_copy(
        update={
            "eval_id": uuid(),
            "run_id": uuid(),
            "task_id": uuid(),
            "created": created.isoformat(timespec="seconds"),
            "model": model,
            "metadata": task.metadata,
            "dataset": EvalDataset(
                name=task.dataset.name,
                location=task.dataset.location,
                samples=n,
                sample_ids=[s.id or "" for s in dataset],
                shuffled=False,
            ),
        }
    )
    usage = ModelUsage(
        input_tokens=_USAGE.input_tokens * n,
        output_tokens=_USAGE.output_tokens * n,
        total_tokens=_USAGE.total_tokens * n,
    )
    assert template.results is not None
    return template.model_copy(
        update={
            "eval": spec,
            "samples": samples,
            "results": template.results.model_copy(
                update={"total_samples": n, "completed_samples": n}
            ),
            "stats": template.stats.model_copy(
                update={
                    "started_at": spec.created,
                    "completed_at": (created + timedelta(seconds=1)).isoformat(timespec="seconds"),
                    "model_usage": {model: usage},
                }
            ),
            "reductions": None,
            "location": "",
        }
    )


def write_runs(
    folder: Path,
    count: int,
    versions: Sequence[str] = ("v1", "v2", "v3"),
    model: str = "mockllm/judge",
) -> list[Path]:
    """`count` synthetic cases judged on each version by one scripted model: one .eval log
    per version in `folder`, and the case file beside them."""
    folder.mkdir(parents=True, exist_ok=True)
    cases = folder / "cases.jsonl"
    write_cases(cases, count)
    # Not in `folder`: the comparison reads every log there.
    with tempfile.TemporaryDirectory() as work:
        template = template_log(Path(work))
    start = datetime.now(UTC).replace(microsecond=0)
    paths = []
    for i, version in enumerate(versions):
        task = judge_groundedness(prompt_version=version, dataset=str(cases))
        created = start + timedelta(seconds=2 * i)
        log = synthetic_log(template, task, version, model, created)
        name = f"{created:%Y-%m-%dT%H-%M-%S}-00-00_judge-groundedness_{log.eval.task_id}.eval"
        path = folder / name
        write_log(log, path)
        paths.append(path)
    return paths
