"""Production periods with known truth, judged as a run judges them, at any size.

A synthetic period's drafts are the synthetic cases without their labels (one in three is
ungrounded: an altered price). The scripted judge finds the draft it is shown by the case id
in its question and answers by a fixed rule (`judge_says`): it catches most ungrounded
answers, flags a few grounded ones, and replies to some with no verdict.

A base run is the production task itself through Inspect's `eval()`. `grow_production_log`
repeats its samples under new draft ids and content hashes, for a period of a million answers,
laid out as Inspect lays out a finished run's log (messages, events and all), one log per shard
as a sharded run writes them.
"""

import hashlib
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import (
    EvalLog,
    read_eval_log,
    read_eval_log_sample_summaries,
    read_eval_log_samples,
)
from shortuuid import uuid

from farejudge.core.drafts import Draft, content_hash
from farejudge.evals.judge_production import judge_production
from farejudge.labelling.draft_file import write_atomic
from farejudge.testing.run_logs import grown_header, renamed
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import synthetic_case, synthetic_judge

MISSES = 10
"""Percent of ungrounded answers the scripted judge passes."""
FALSE_ALARMS = 15
"""Percent of grounded answers it flags."""
FAILURES = 2
"""Percent of answers it replies to with no verdict."""


def ungrounded(index: int) -> bool:
    """The truth of synthetic draft `index`."""
    return not synthetic_case(index)["label"]["grounded"]


def judge_says(index: int) -> str:
    """What the scripted judge says of draft `index`: ungrounded, grounded or failure."""
    roll = zlib.crc32(f"production/{index}".encode()) % 100
    if roll < FAILURES:
        return "failure"
    wrong = roll < FAILURES + (MISSES if ungrounded(index) else FALSE_ALARMS)
    return "ungrounded" if ungrounded(index) != wrong else "grounded"


def synthetic_draft(index: int) -> Draft:
    """Synthetic case `index` as judge-intake would draft it: its content hash in its id."""
    case = synthetic_case(index)
    unhashed = Draft(
        id="pending",
        category=case["category"],
        question=case["question"],
        prior_turns=[],
        passages=case["passages"],
        answer=case["answer"],
        content_sha256="pending",
        source=f"synthetic.log:{index + 1}",
    )
    digest = content_hash(unhashed)
    return unhashed.model_copy(update={"id": f"prod-{digest[:24]}", "content_sha256": digest})


def write_drafts(path: Path, count: int) -> list[Draft]:
    """`count` synthetic drafts in a drafts file, as judge-intake writes one."""
    drafts = [synthetic_draft(i) for i in range(count)]
    write_atomic(path, (d.model_dump_json() for d in drafts))
    return drafts


def reply(case_id: str) -> str:
    """The scripted judge's reply to the synthetic draft with this case id."""
    index = int(case_id.removeprefix("syn-"))
    said = judge_says(index)
    if said == "failure":
        return "I cannot decide."
    if said == "grounded":
        return '{"grounded": true, "unsupported_claims": [], "reasoning": "All in P1."}'
    claim = synthetic_case(index)["answer"].rstrip(".")
    return f'{{"grounded": false, "unsupported_claims": ["{claim}"], "reasoning": "Not in P1."}}'


def base_run(folder: Path, count: int) -> EvalLog:
    """The production task over `count` synthetic drafts on the scripted judge: its log in
    `folder`/logs, the drafts file beside them."""
    drafts = folder / "drafts.jsonl"
    write_drafts(drafts, count)
    (log,) = eval(
        judge_production(drafts=str(drafts)),
        model=synthetic_judge(lambda case_id: mock_output(reply(case_id))),
        log_dir=str(folder / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def grown_population(count: int) -> dict[str, str]:
    """`count` distinct drafts' ids and content hashes: a period of that many answers."""
    hashes = (hashlib.sha256(f"grown draft {k}".encode()).hexdigest() for k in range(count))
    return {f"prod-{digest[:24]}": digest for digest in hashes}


def grow_production_log(
    base: str,
    path: Path,
    drafts: Sequence[tuple[str, str]],
    population: int,
    population_sha256: str,
    shard: str | None,
) -> None:
    """The run of the log at `base` (a `base_run` log) as if it judged `drafts` (id, content
    hash), one shard of a period of `population` drafts: each draft a base sample's copy, in
    turn, under its own id and content hash. A .eval log at `path`, laid out as Inspect lays
    out a finished run's log."""
    header = read_eval_log(base, header_only=True)
    summaries = {(s.id, s.epoch): s for s in read_eval_log_sample_summaries(base)}
    texts = [
        (
            str(sample.id),
            str((sample.metadata or {})["content_sha256"]),
            sample.uuid,
            sample.model_dump_json(),
            summaries[(sample.id, sample.epoch)].model_dump_json(),
        )
        for sample in read_eval_log_samples(base)
    ]
    summary_texts: list[str] = []
    zstd = zipfile.ZIP_ZSTANDARD  # type: ignore[attr-defined]
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zstd) as archive:
        for i, (draft, digest) in enumerate(drafts):
            old_id, old_digest, old_uuid, sample_text, summary_text = texts[i % len(texts)]
            renames = {old_id: draft, old_digest: digest}
            if old_uuid:
                renames[old_uuid] = uuid()
            archive.writestr(f"samples/{draft}_epoch_1.json", renamed(sample_text, renames))
            summary_texts.append(renamed(summary_text, renames))
        archive.writestr("summaries.json", f"[{','.join(summary_texts)}]")
        archive.writestr("reductions.json", "[]")
        metadata = {
            "population": population,
            "population_sha256": population_sha256,
            "shard": shard,
        }
        grown = grown_header(header, [draft for draft, _ in drafts], metadata)
        archive.writestr("header.json", grown.model_dump_json())
