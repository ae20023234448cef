"""The production judge's logs → every draft of the period with the judge's prediction.

Reads `farejudge/judge_production` logs with the comparison's readers: headers without
Inspect, each log's sample summaries streamed (never the transcripts) in a worker process per
log where that pays. A period judged in shards is one period: its logs are joined, each draft
kept from the best log that holds it (scored over errored; then a finished run, a later one).

Every log must be of that task, judge the same population (the drafts file's content hash,
which each shard records whole) with the same judge, and together hold every draft of it.
A draft whose sample errored (an outage) is known but unjudged: never a judge failure.
"""

import math
import zipfile
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import numpy as np
import pandas as pd
from fsspec.core import url_to_fs
from numpy.typing import NDArray
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    model_validator,
)

from farejudge.core.errors import InputError
from farejudge.core.text_input import dotted, shown
from farejudge.shared.logs.headers import (
    INSPECT_FILES,
    Header,
    NotALog,
    archive_header,
    inspect_header,
    log_files,
)
from farejudge.shared.logs.summaries import archive_summaries, log_samples
from farejudge.shared.logs.unusable import READ_ERRORS, Unusable, diagnose
from farejudge.shared.logs.workers import map_logs

TASK = "judge_production"
SCORER = "production_verdict"

Floats = NDArray[np.float64]
Bools = NDArray[np.bool_]
Strings = NDArray[np.object_]


@dataclass(frozen=True)
class Judged:
    """Every draft the period's logs hold, in one order: what the judge said of each."""

    ids: Strings
    categories: Strings
    content: NDArray[np.bytes_]
    """Each draft's content hash as the run judged it (what a label must name), in ASCII."""
    verdict: Floats
    """The judge's verdict, 1 ungrounded or 0 grounded (its mean over epochs); NaN where it
    gave none (a judge failure) or never judged the draft (an outage)."""
    p_ungrounded: Floats
    """Its graded P(ungrounded) (mean over epochs); NaN where it has none."""
    failed: Bools
    """Scored, with no verdict in any epoch: judge failures."""
    errored: Bools
    """In the logs but never scored: the provider failed (an outage), not the judge."""
    escalated: Bools
    """Not decided by the judge alone under the run's threshold (`-T threshold=`): escalated
    to a person (a confidence below it, a judge failure) or never judged (an outage). All
    false for a run held to no threshold."""
    threshold: float | None
    """The confidence threshold the run held each answer to; None where it held none."""
    population: int
    population_sha256: str
    model: str
    prompt_version: str
    graded: str
    """The run's `-T graded=` option."""
    logs: list[str]
    """The logs read, best last."""
    left_out: list[str]
    """The files found in the folders given and not read, each with why."""

    def positions(self, drafts: Collection[str]) -> dict[str, int]:
        """The position in the arrays of each of `drafts` the logs hold."""
        wanted = set(drafts)
        return {str(d): i for i, d in enumerate(self.ids.tolist()) if d in wanted}

    def content_of(self, position: int) -> str:
        return bytes(self.content[position]).decode("ascii")


def _files(paths: Sequence[str]) -> dict[str, bool]:
    try:
        return log_files(paths)
    except NotALog as err:
        raise InputError([str(err)]) from None


def _leave_out(location: str, why: str, named: bool, left_out: list[str]) -> None:
    if named:
        raise InputError([f"{_shown(location)}: {why}"])
    left_out.append(f"{_shown(location)}: {why}")


# What the audit reads of a log, checked against what each value means as it is read: a value
# the task never writes (a verdict of 7, a list for a number, scores that are no mapping) is a
# damaged or edited log, refused in one line, never a figure. Strict: a string or a boolean is
# no number here.
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


class _Read(BaseModel):
    # Inspect's records hold more than the audit reads: the rest is not checked here.
    model_config = ConfigDict(strict=True, extra="ignore")


class _Value(_Read):
    """The production scorer's value (`scorers/production_scorer.py`), as far as it is read."""

    judge_ungrounded: float | None
    judge_failure: float
    p_ungrounded: float | None = None
    escalation: Literal["decided", "escalated"] | None = None

    # One check of the numbers' meanings, each naming its key: a million samples pass here,
    # and each validator is a call into Python.
    @model_validator(mode="after")
    def _as_the_task_writes_it(self) -> Self:
        failure, verdict, p = self.judge_failure, self.judge_ungrounded, self.p_ungrounded
        if failure not in (0, 1):
            raise ValueError(f"judge_failure {failure!r} is neither 0 nor 1")
        given = verdict is not None and not math.isnan(verdict)
        if failure == 1 and given:
            raise ValueError(f"judge_ungrounded {verdict!r} for a judge failure (judge_failure 1)")
        if failure == 0 and verdict not in (0, 1):
            raise ValueError(f"judge_ungrounded {verdict!r} is neither 0 nor 1")
        # NaN is the task's "none" (no graded score); anything else is a probability.
        if p is not None and not (math.isnan(p) or 0 <= p <= 1):
            raise ValueError(f"p_ungrounded {p!r} is not a probability in [0, 1]")
        return self


class _Score(_Read):
    value: _Value


class _Metadata(_Read):
    category: str
    content_sha256: Sha256


class _Sample(_Read):
    """One sample of a production log, as far as the audit reads it."""

    id: str | int
    epoch: Annotated[int, Field(ge=1)]
    metadata: _Metadata
    scores: dict[str, _Score | None] | None = None
    error: object = None

    @model_validator(mode="after")
    def _scored_or_errored(self) -> Self:
        # Unscored is an outage only where the run says why: a sample with neither a score
        # nor an error is no sample Inspect writes.
        if (self.scores or {}).get(SCORER) is None and self.error is None:
            raise ValueError(f"neither a {SCORER} score nor an error")
        return self


class _RunMetadata(_Read):
    """The production task's eval metadata, as far as the audit reads it."""

    graded: str
    prompt_version: str
    population: Annotated[int, Field(ge=0)] | None = None
    population_sha256: Sha256 | None = None
    threshold: Annotated[float, Field(ge=0, le=1)] | None = None


@dataclass(frozen=True)
class Refused:
    """A log of the task holding a value it never writes: one line saying where."""

    line: str


def _refusal(err: ValidationError, where: str) -> Refused:
    first = err.errors()[0]
    field = f"field {dotted(first['loc'])!r}: " if first["loc"] else ""
    message = first["msg"].removeprefix("Value error, ")
    return Refused(f"{where}{field}{message}")


class _BadSample(Exception):
    def __init__(self, refused: Refused) -> None:
        self.refused = refused


def _sample_where(sample: Any) -> str:
    """A sample as a reader finds it again: its id and epoch, as far as they read."""
    if not isinstance(sample, dict):
        return "a sample: "
    shown_id = sample.get("id")
    return f"sample {shown_id!r} epoch {sample.get('epoch')!r}: "


def _columns(samples: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """What the audit reads of each sample, as columns, compact: a million samples cross from
    a worker to the command, and stay in memory there. A sample holding a value the task never
    writes raises _BadSample."""
    ids: list[str] = []
    epochs: list[int] = []
    categories: list[str] = []
    # One object per category: pickled once, shared once unpickled.
    named: dict[str, str] = {}
    content: list[str] = []
    verdict: list[float] = []
    failure: list[float] = []
    graded: list[float] = []
    escalated: list[bool] = []
    for raw in samples:
        try:
            sample = _Sample.model_validate(raw)
        except ValidationError as err:
            raise _BadSample(_refusal(err, _sample_where(raw))) from None
        score = (sample.scores or {}).get(SCORER)
        ids.append(str(sample.id))
        epochs.append(sample.epoch)
        category = sample.metadata.category
        categories.append(named.setdefault(category, category))
        content.append(sample.metadata.content_sha256)
        if score is None:
            # Not scored: the judge was never reached (an outage).
            verdict.append(math.nan)
            failure.append(math.nan)
            graded.append(math.nan)
            escalated.append(False)
            continue
        value = score.value
        verdict.append(_number(value.judge_ungrounded))
        failure.append(value.judge_failure)
        graded.append(_number(value.p_ungrounded))
        escalated.append(value.escalation == "escalated")
    return {
        "id": ids,
        "epoch": np.array(epochs, dtype=np.int32),
        "category": categories,
        # A SHA-256 in hex is ASCII: 64 bytes a draft, not a string object.
        "content": np.array(content, dtype="S64"),
        "verdict": np.array(verdict),
        "failure": np.array(failure),
        "p_ungrounded": np.array(graded),
        "escalated": np.array(escalated, dtype=bool),
    }


def _header_fields(header: Header) -> dict[str, Any]:
    """What the audit reads of a log's header. Its eval metadata is checked only for a log of
    the task (a caller's check): another task's metadata means other things."""
    metadata = header.metadata
    return {
        "task": header.task.split("/")[-1],
        "model": header.model,
        "status": header.status,
        "finished": header.finished or "",
        "completed": header.completed or 0,
        "prompt_version": str(metadata.get("prompt_version")),
        "graded": str(metadata.get("graded")),
        "population": metadata.get("population"),
        "population_sha256": metadata.get("population_sha256"),
        "threshold": metadata.get("threshold"),
    }


def _checked(header: Header) -> dict[str, Any] | Refused:
    found = _header_fields(header)
    if found["task"] != TASK:
        return found
    try:
        _RunMetadata.model_validate(header.metadata)
    except ValidationError as err:
        return _refusal(err, "eval metadata: ")
    return found


def _log(location: str, _: str) -> dict[str, Any] | Unusable | Refused:
    """One log's header and, for a log of the task, its samples as columns; or why it cannot
    be read, or the value in it the task never writes. Each .eval log is opened once (its zip
    directory is most of a large log's reading after its samples). A worker returns what it
    found: an exception may not pickle."""
    try:
        if location.endswith(".eval"):
            fs, path = url_to_fs(location)
            with fs.open(path, "rb") as raw, zipfile.ZipFile(raw) as archive:
                found = _checked(archive_header(archive) or inspect_header(location))
                if isinstance(found, dict) and found["task"] == TASK:
                    found["rows"] = _columns(archive_summaries(archive))
            return found
        found = _checked(inspect_header(location))
        if isinstance(found, dict) and found["task"] == TASK:
            found["rows"] = _columns(log_samples(location))
        return found
    except _BadSample as err:
        return err.refused
    except READ_ERRORS as err:
        return diagnose(location, err, TASK)


def _logs(paths: Sequence[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """Every log of the task under `paths` with its samples; the files left out, with why."""
    files = _files(paths)
    found = map_logs(_log, [(location, "") for location in files])
    logs: list[dict[str, Any]] = []
    left_out: list[str] = []
    for (location, named), result in zip(files.items(), found, strict=True):
        name = location.replace("\\", "/").rsplit("/", 1)[-1]
        if isinstance(result, Refused):
            # A log of the period's run, damaged or edited: no estimate leaves it out.
            raise InputError([f"{_shown(location)}: {result.line}"])
        if isinstance(result, Unusable):
            if not named and result.settled and name in INSPECT_FILES:
                continue  # an eval set's record or a listing, as Inspect wrote it
            _leave_out(location, f"cannot read it: {result}", named, left_out)
        elif result["task"] != TASK:
            _leave_out(
                location,
                f"a log of {result['task']}, not of {TASK}: judge the period with `inspect eval "
                f"farejudge/{TASK} -T drafts=...`",
                named,
                left_out,
            )
        elif result["population_sha256"] is None or result["population"] is None:
            _leave_out(location, "no population_sha256 in its eval metadata", named, left_out)
        else:
            logs.append({**result, "log": location})
    if not logs:
        found_out = f"; each file found is left out ({len(left_out)})" if left_out else ""
        raise InputError([f"no {TASK} logs in {', '.join(paths)}{found_out}", *left_out])
    return logs, left_out


def _same(headers: list[dict[str, Any]], key: str, what: str) -> str:
    """The one value of `key` all logs share, or an InputError naming a log that differs."""
    first = headers[0]
    for header in headers[1:]:
        if header[key] != first[key]:
            raise InputError(
                [
                    f"{_shown(header['log'])}: {what} {header[key]!r}, but "
                    f"{_shown(first['log'])} has "
                    f"{first[key]!r}: give the logs of one period's run"
                ]
            )
    return str(first[key])


def _number(value: float | None) -> float:
    return math.nan if value is None else value


def _ranked(headers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Worst first: a finished run over one that is not, then by when it finished, then by
    how many samples it completed (a retry within the same second)."""
    return sorted(
        headers, key=lambda h: (h["status"] == "success", str(h["finished"]), h["completed"])
    )


def _drafts(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per draft from its rows over logs and epochs: each (draft, epoch) from its best
    log (scored first), then the epochs averaged."""
    frame = frame.assign(scored=frame["failure"].notna())
    # One log and one epoch a draft, as a period's run (or its shards) writes them, needs no
    # choosing and no grouping.
    single = not frame["id"].duplicated().any()
    if not single:
        frame = frame.sort_values(["scored", "rank"], kind="stable").drop_duplicates(
            ["id", "epoch"], keep="last"
        )
    answered = frame["scored"] & (frame["failure"] == 0)
    frame = frame.assign(
        verdict=frame["verdict"].where(answered),
        p_ungrounded=frame["p_ungrounded"].where(answered),
        answered=answered,
    )
    if single:
        return frame
    grouped = frame.groupby("id", sort=False)
    drafts = grouped.agg(
        category=("category", "last"),
        content=("content", "last"),
        verdict=("verdict", "mean"),
        p_ungrounded=("p_ungrounded", "mean"),
        scored=("scored", "any"),
        answered=("answered", "any"),
        # An answer any epoch escalated goes to a person.
        escalated=("escalated", "any"),
    )
    return drafts.reset_index()


def _shown(location: str) -> str:
    """A local log as the user would type it (relative to the working folder when inside it);
    a remote one as it is."""
    return location if "://" in location else shown(Path(location))


def read_judged(paths: Sequence[str]) -> Judged:
    """The period's drafts and the judge's predictions from its logs (files or folders), or an
    InputError of one line naming the log and what is wrong with it."""
    logs, left_out = _logs(paths)
    population_sha256 = _same(logs, "population_sha256", "judged the drafts hashing to")
    population = int(_same(logs, "population", "judged a population of"))
    model = _same(logs, "model", "was judged by")
    version = _same(logs, "prompt_version", "was judged with prompt version")
    _same(logs, "threshold", "held its answers to the threshold")
    threshold: float | None = logs[0]["threshold"]
    ranked = _ranked(logs)
    drafts = _drafts(
        pd.concat(
            [pd.DataFrame(log.pop("rows")).assign(rank=rank) for rank, log in enumerate(ranked)],
            ignore_index=True,
        )
    )
    if len(drafts) < population:
        raise InputError(
            [
                f"{_shown(ranked[-1]['log'])}: the logs hold {len(drafts):,} of the period's "
                f"{population:,} drafts: a shard's log is missing, or a run stopped or was "
                "limited (--limit); `inspect eval-retry LOG` completes a stopped run"
            ]
        )
    if len(drafts) > population:
        raise InputError(
            [
                f"{_shown(ranked[-1]['log'])}: the logs hold {len(drafts):,} drafts, more than the "
                f"period's {population:,}: a log of other drafts with the same population hash?"
            ]
        )
    scored = drafts["scored"].to_numpy(dtype=bool)
    answered = drafts["answered"].to_numpy(dtype=bool)
    return Judged(
        ids=drafts["id"].to_numpy(dtype=object),
        categories=drafts["category"].to_numpy(dtype=object),
        content=drafts["content"].to_numpy(dtype="S64"),
        verdict=drafts["verdict"].to_numpy(dtype=np.float64, na_value=np.nan),
        p_ungrounded=drafts["p_ungrounded"].to_numpy(dtype=np.float64, na_value=np.nan),
        failed=scored & ~answered,
        errored=~scored,
        escalated=np.zeros(len(drafts), dtype=bool)
        if threshold is None
        else drafts["escalated"].to_numpy(dtype=bool) | ~scored,
        threshold=threshold,
        population=population,
        population_sha256=population_sha256,
        model=model,
        prompt_version=version,
        graded=str(ranked[-1]["graded"]),
        logs=[_shown(str(log["log"])) for log in ranked],
        left_out=left_out,
    )
