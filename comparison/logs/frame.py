"""Logs → one tidy frame with a row per (version, model, case, epoch), from Inspect's logs.

Rows are per epoch on purpose: epoch-reduced scores would hide how often a verdict
changes between epochs, and averaging first would lose the confusion counts.
"""

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.core.shards import Shard, parse_shard
from farejudge.shared.logs.headers import (
    INSPECT_FILES,
    NotALog,
    Usage,
    log_files,
    read_header,
)
from farejudge.shared.logs.summaries import log_samples
from farejudge.shared.logs.unusable import READ_ERRORS, Unusable, another_task, diagnose
from farejudge.shared.logs.workers import map_logs

TASK = "judge_groundedness"
SCORER = "verdict_agreement"
SPAN_COUNTS = ("span_judge_chars", "span_gold_chars", "span_overlap_chars")
"""The scorer's character counts behind span precision and recall."""


@dataclass(frozen=True)
class LeftOut:
    """A log file found and not compared: it could not be read, or is not a log of the task.

    It holds the gate INCOMPLETE unless it was read whole and is not a log of the task
    (`Unusable.settled`): a file that could not be read whole may hold a run, or part of
    one, that the comparison lacks. `run` ties it to a compared run where its header could be
    read; a file with no readable header is tied to none and holds the gate all the same.

    A log that reads but whose run has not finished (still going, or stopped) is not left
    out: it is compared on the samples it holds, and the gate calls its run incomplete.
    """

    log: str
    why: Unusable
    run: tuple[str, str] | None = None
    """The version and model its header names, if its header could be read."""

    @property
    def holds_gate(self) -> bool:
        return not self.why.settled


class LogsError(Exception):
    """The logs cannot be compared; the message says why in one line."""

    def __init__(self, message: str, left_out: Sequence[LeftOut] = ()) -> None:
        super().__init__(message)
        self.left_out = list(left_out)
        """The files left out before the comparison gave up, for the caller to name."""


@dataclass(frozen=True)
class Coverage:
    """Which cases of its case set one run judged, as its log records it."""

    judged: frozenset[str]
    """Cases scored in every epoch (a judge failure is scored: it is the judge's answer)."""
    errored: frozenset[str]
    """Cases not judged that have an errored epoch: the provider failed, not the judge."""
    cancelled: frozenset[str]
    """Cases not judged, none of their epochs errored, with an epoch that was in flight when
    the run stopped: Inspect cancels those and logs the cancellation, not the cause."""
    selected: frozenset[str]
    """The cases the run was given: its whole case set unless a `--limit` or `--sample-id`
    chose fewer."""
    selection: str
    """The option that chose them (`--limit 10`), or "" when none did."""
    stopped_by: str | None
    """The error the run stopped on, as Inspect recorded it; None if it did not stop on one."""
    shards: tuple[Shard | None, ...] = (None,)
    """The shard of each log the run joins (`judge-matrix --shard`), None for an unsharded
    log: `(None,)` for a run in one log. The gate checks they cover the case set once."""
    unfinished: tuple[Shard, ...] = ()
    """The shards whose log did not finish or did not judge every case it was given."""


@dataclass(frozen=True)
class Runs:
    samples: pd.DataFrame
    """One row per scored version, model, case and epoch. Columns: version, model, case,
    case_hash, category, epoch; gold_ungrounded, agree, failure (1 for no readable verdict;
    never agreement), judge_ungrounded (NaN on a failure); claims_gold, claims_judge,
    claims_matched; span_judge_chars, span_gold_chars, span_overlap_chars (NaN in a log
    written before span scores); verdict (the judge's verdict in words, or why there is
    none); p_ungrounded (the judge's graded P(ungrounded), NaN where it has none) and
    graded_source (logprobs, epochs or none); cost (the sample's ModelUsage.total_cost
    summed over the models it called, NaN where none recorded one, as without
    `--model-cost-config`) and working_time (Inspect's working time of the sample, in
    seconds: its judge call, less retry back-off and waits for a connection; NaN in a log
    without one). A sample that errored (the provider failed, not the judge) is not here:
    `logs` counts it."""
    logs: pd.DataFrame
    """The log read for each version and model: version, model, log, status, epochs,
    errored (samples that errored and were not scored; a sample cancelled when the run
    stopped is not counted), prompt_tokens and completion_tokens (the run's totals, from its
    usage) and total_cost (the sum of its models' total_cost; NaN when the run
    recorded none, as without `--model-cost-config`). A sharded run is one row: its log is
    the folder `judge-matrix --log-dir` wrote its shards under, its status "success" only if
    every shard's is, its counts the sums over its shards."""
    case_sets: dict[tuple[str, str], dict[str, str]]
    """(version, model) → the run's case set as the log recorded it: case id → content hash."""
    coverage: dict[tuple[str, str], Coverage]
    """(version, model) → which cases of that case set the run judged."""
    versions: list[str]
    """In the order of the manifest the newest log ran with; others come last."""
    current: str
    """That manifest's current version: the one the gate holds to account."""
    models: list[str]
    pinned: dict[str, list[str]]
    """Every version of that manifest, in its order → the cases it says it fixed."""
    notes: list[str]
    """What a reader must know about the logs (superseded, incomplete, mixed case sets)."""
    log_files: dict[tuple[str, str], list[tuple[str, frozenset[str]]]] = field(default_factory=dict)
    """(version, model) → each log file the run joins, with the cases it was given; the
    best-ranked log last. A run absent here is in one file, its `logs` row's log."""
    left_out: list[LeftOut] = field(default_factory=list)
    """The files found in the folders given and not compared, in the order they were found."""

    def sample_log(self, key: tuple[str, str], case: str) -> str:
        """The log file that holds `case` of the run `key`: its shard's, for a sharded run."""
        files = self.log_files.get(key, [])
        for location, given in reversed(files):
            if case in given:
                return location
        logs = self.logs
        return str(logs.loc[(logs["version"] == key[0]) & (logs["model"] == key[1]), "log"].iloc[0])


# Inspect logs a sample cancelled in flight (the run stopping on another sample's error) with
# the repr of the backend's cancellation as its error: asyncio's or trio's.
_CANCELLED = ("CancelledError(", "Cancelled(")


def _floats(column: pd.Series) -> NDArray[np.float64]:
    values: NDArray[np.float64] = column.to_numpy(dtype=float, na_value=np.nan)
    return values


def _log_files(paths: Sequence[str]) -> dict[str, bool]:
    try:
        return log_files(paths)
    except NotALog as err:
        raise LogsError(str(err)) from None


def _leave_out(item: LeftOut, named: bool, left_out: list[LeftOut]) -> None:
    if named:
        raise LogsError(f"{item.log}: cannot compare it: {item.why}", left_out)
    left_out.append(item)


def _header_record(location: str) -> dict[str, Any]:
    """What the comparison reads of one log's header (no samples)."""
    header = read_header(location)
    metadata = header.metadata
    return {
        "log": location,
        "eval_id": header.eval_id,
        "task": header.task,
        "version": metadata.get("prompt_version"),
        "model": header.model,
        "status": header.status,
        "created": header.created,
        "epochs": header.epochs,
        "completed": header.completed,
        "finished": header.finished or None,
        "usage": header.usage,
        "error": header.error,
        "selected": header.selected,
        "limit": header.limit,
        "sample_id": header.sample_id,
        # What the run measured, as the task recorded it: read here with the rest of the
        # header, so no log is opened twice.
        "case_sha256": metadata.get("case_sha256"),
        "case_set": metadata.get("case_set_sha256"),
        "manifest": metadata.get("manifest"),
        "shard": _shard(location, metadata.get("shard")),
    }


def _shard(location: str, value: object) -> Shard | None:
    try:
        return parse_shard(value)
    except ValueError as err:
        raise LogsError(f"{location}: its eval metadata's shard: {err}") from err


def _inspects_own(location: str) -> bool:
    return location.replace("\\", "/").rsplit("/", 1)[-1] in INSPECT_FILES


def _read_evals(paths: Sequence[str]) -> tuple[pd.DataFrame, list[LeftOut]]:
    """Every log's header, and the files left out: unreadable, or of another task."""
    files = _log_files(paths)
    if not files:
        raise LogsError(f"no Inspect logs in {', '.join(paths)}")
    records: list[dict[str, Any]] = []
    left_out: list[LeftOut] = []
    for location, named in files.items():
        try:
            record = _header_record(location)
        except READ_ERRORS as err:
            why = diagnose(location, err, TASK)
            if not named and why.settled and _inspects_own(location):
                continue  # an eval set's record or a listing, as Inspect wrote it
            _leave_out(LeftOut(location, why), named, left_out)
            continue
        if str(record["task"]).split("/")[-1] == TASK:
            records.append({**record, "named": named})
        else:
            _leave_out(LeftOut(location, another_task(str(record["task"]))), named, left_out)
    if not records:
        found = f": each log found is left out ({len(left_out)})" if left_out else ""
        raise LogsError(f"no {TASK} logs in {', '.join(paths)}{found}", left_out)
    # Objects kept as they are: a frame would turn a column of ints and Nones to floats.
    return pd.DataFrame(records, dtype=object), left_out


def _choose_logs(evals: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """The logs of each version and model's run: per shard (or for the unsharded run), the
    newest successful log, else the newest log at all; a `run` column numbers the runs.

    An eval set that retried a run leaves the failed attempt beside the good one; a run
    that never succeeded is still read, so its missing cases are seen, and noted. A run is
    one case set and epochs: the best log's; logs of others for the same version and model
    are older runs, ignored. Its shards' logs are joined; the gate checks they cover it once.
    """
    # By when the run finished: a retry keeps its original's creation time. Timestamps
    # have whole seconds, so a retry finished within the second of its original is told
    # apart by the samples it completed.
    ranked = evals.assign(
        ok=evals["status"] == "success",
        # Numeric even when no log of the group has results (each stopped midway).
        done=pd.to_numeric(evals["completed"]).fillna(0),
        at=evals["finished"].fillna("").astype(str),
        shard_key=[str(shard) if shard else "" for shard in evals["shard"]],
    ).sort_values(["ok", "at", "done"], kind="stable")
    chosen = []
    for run, (key, group) in enumerate(ranked.groupby(["version", "model"], sort=False)):
        version, model = key
        best = group.iloc[-1]
        same_run = [
            (case_set, epochs) == (best["case_set"], best["epochs"])
            for case_set, epochs in zip(group["case_set"], group["epochs"], strict=True)
        ]
        # Sorted best last, so each shard's last log is its best, and the run's best is last.
        picked = group[same_run].groupby("shard_key", sort=False).tail(1)
        for row in picked.itertuples():
            if not row.ok:
                shard = f" shard {row.shard}" if row.shard else ""
                notes.append(
                    f"{version} on {model}{shard}: no successful log; read "
                    f"{Path(str(row.log)).name}, whose status is '{row.status}'"
                )
        if len(group) > len(picked):
            notes.append(
                f"{version} on {model}: {len(group) - len(picked)} other log(s) for the same "
                "run ignored"
            )
        chosen.append(picked.assign(run=run))
    return pd.concat(chosen, ignore_index=True)


def _measured(logs: pd.DataFrame) -> list[dict[str, Any]]:
    """Each chosen log's record of its case set and manifest; an older log has none."""
    found = []
    for row in logs.itertuples():
        missing = [key for key in ("case_sha256", "manifest") if getattr(row, key) is None]
        if missing:
            raise LogsError(
                f"{Path(str(row.log)).name}: no {missing[0]} in the eval metadata, so what it "
                "measured is unknown; it was written by an older version of this task: "
                "run it again"
            )
        found.append({"case_sha256": row.case_sha256, "manifest": row.manifest})
    return found


def _option(value: object) -> str:
    """A `--limit` or `--sample-id` value as given on the command line: `10`, `2,5`, `a,b`."""
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(int(value)) if isinstance(value, float) else str(value)


def _missing(value: object) -> bool:
    """None, or the NaN a frame puts in a numeric column for it."""
    return value is None or (isinstance(value, float) and np.isnan(value))


def _selection(limit: object, sample_id: object) -> str:
    options = [("--limit", limit), ("--sample-id", sample_id)]
    return " ".join(f"{name} {_option(value)}" for name, value in options if not _missing(value))


def _outcomes(raw: pd.DataFrame) -> NDArray[np.str_]:
    """Each sample's outcome: scored; errored (the provider failed); cancelled (in flight when
    the run stopped on another sample's error); or unscored, with no error."""
    error = raw["error"].astype("string")
    cancelled = error.str.startswith(_CANCELLED).fillna(False).to_numpy(dtype=bool)
    outcomes: NDArray[np.str_] = np.select(
        [raw["agree"].notna().to_numpy(dtype=bool), cancelled, error.notna().to_numpy(dtype=bool)],
        ["scored", "cancelled", "errored"],
        "unscored",
    )
    return outcomes


def _coverage(row: Any, samples: pd.DataFrame, case_set: dict[str, str]) -> Coverage:
    """What one chosen log (`row` of the evals frame) judged, from its samples' outcomes."""
    epochs = 1 if _missing(row.epochs) else int(row.epochs)

    def cases(outcome: str) -> frozenset[str]:
        return frozenset(samples.loc[samples["outcome"] == outcome, "case"].astype(str))

    scored = samples[samples["outcome"] == "scored"].groupby("case").size()
    judged = frozenset(str(case) for case, n in scored.items() if n >= epochs)
    errored = cases("errored") - judged
    return Coverage(
        judged=judged,
        errored=errored,
        cancelled=cases("cancelled") - judged - errored,
        # A log from before Inspect recorded the selection was given its whole case set.
        selected=frozenset(case_set)
        if _missing(row.selected)
        else frozenset(str(case) for case in row.selected),
        selection=_selection(row.limit, row.sample_id),
        stopped_by=None if _missing(row.error) else str(row.error),
    )


def _usage(usage: dict[str, Usage]) -> tuple[int, int, float]:
    """A run's prompt and completion tokens and its cost over every model it called, from its
    log; the cost is NaN unless the run recorded one (`inspect eval --model-cost-config`)."""
    costs = [u.total_cost for u in usage.values() if u.total_cost is not None]
    return (
        sum(u.input_tokens for u in usage.values()),
        sum(u.output_tokens for u in usage.values()),
        float(sum(costs)) if costs else math.nan,
    )


def _ordered_versions(present: set[str], manifest: list[str], notes: list[str]) -> list[str]:
    known = [v for v in manifest if v in present]
    unknown = sorted(present - set(known))
    for version in unknown:
        notes.append(f"version {version} is not in the prompt manifest; it is placed last")
    return known + unknown


_VALUE_KEYS = (
    "agree",
    "judge_failure",
    "gold_ungrounded",
    "judge_ungrounded",
    "claims_gold",
    "claims_judge",
    "claims_matched",
    *SPAN_COUNTS,
    "p_ungrounded",
    "graded_source",
)
_COLUMNS = (
    *("case", "epoch", "category", "relation", *_VALUE_KEYS, "verdict", "error"),
    *("cost", "working_time"),
)


def _record(sample: dict[str, Any]) -> tuple[Any, ...]:
    """The columns of one sample (a summary, or a whole sample of a .json log)."""
    score = (sample.get("scores") or {}).get(SCORER) or {}
    value = score.get("value")
    value = value if isinstance(value, dict) else {}
    metadata = sample.get("metadata") or {}
    error = sample.get("error")
    # A summary holds the error's message; a whole sample the error itself.
    if isinstance(error, dict):
        error = error.get("message")
    return (
        str(sample["id"]),
        int(sample["epoch"]),
        metadata.get("category"),
        metadata.get("relation"),
        *(value.get(key) for key in _VALUE_KEYS),
        score.get("answer"),
        error,
        _sample_cost(sample.get("model_usage") or {}),
        sample.get("working_time"),
    )


def _sample_cost(usage: dict[str, Any]) -> float | None:
    """What one sample's calls cost over every model it called, as Inspect priced them; None
    where no call was priced (a run without `--model-cost-config`)."""
    costs = [u["total_cost"] for u in usage.values() if u.get("total_cost") is not None]
    return float(sum(costs)) if costs else None


def _read_samples(location: str, eval_id: str) -> pd.DataFrame:
    """One log's samples, only the columns the comparison uses, in one streaming pass: a .eval
    log's summaries (never its transcripts); a .json log's samples, each dropped once read."""
    records = [_record(s) for s in log_samples(location)]
    frame = pd.DataFrame.from_records(records, columns=list(_COLUMNS))
    # A sample run again into the same log (eval-retry) supersedes its earlier record.
    frame = frame.drop_duplicates(["case", "epoch"], keep="last").reset_index(drop=True)
    return frame.assign(eval_id=eval_id)


def _tidy(raw: pd.DataFrame, logs: pd.DataFrame, case_sets: list[dict[str, str]]) -> pd.DataFrame:
    """The scored samples; an errored sample has no score and is counted in `logs` instead."""
    raw = raw[raw["agree"].notna()]
    failure = _floats(raw["judge_failure"])
    by_eval = logs.set_index("eval_id")
    hashes = dict(zip(logs["eval_id"], case_sets, strict=True))
    return pd.DataFrame(
        {
            "version": raw["eval_id"].map(by_eval["version"]).astype(str).to_numpy(),
            "model": raw["eval_id"].map(by_eval["model"]).astype(str).to_numpy(),
            "case": raw["case"].to_numpy(),
            "case_hash": [
                hashes[e].get(c) for e, c in zip(raw["eval_id"], raw["case"], strict=True)
            ],
            "category": raw["category"].astype(str).to_numpy(),
            # Logs from before the metamorphic suite hold gold cases only.
            "relation": raw["relation"].fillna("gold").astype(str).to_numpy(),
            "epoch": raw["epoch"].to_numpy(dtype=int),
            # The scorer's value records gold beside the judge's verdict.
            "gold_ungrounded": _floats(raw["gold_ungrounded"]),
            "agree": _floats(raw["agree"]),
            "failure": failure,
            "judge_ungrounded": np.where(failure > 0, np.nan, _floats(raw["judge_ungrounded"])),
            "claims_gold": _floats(raw["claims_gold"]),
            "claims_judge": np.nan_to_num(_floats(raw["claims_judge"])),
            "claims_matched": np.nan_to_num(_floats(raw["claims_matched"])),
            # Unlike the claim counts, NaN where missing: a log from before span scores has
            # none, and zero would pass for a judge that quoted nothing.
            **{key: _floats(raw[key]) for key in SPAN_COUNTS},
            "verdict": raw["verdict"].astype(str).to_numpy(),
            # NaN where the sample has no graded score: a judge failure, a provider that gave
            # no logprobs, a log from before graded scores.
            "p_ungrounded": _floats(raw["p_ungrounded"]),
            "graded_source": raw["graded_source"].fillna("none").astype(str).to_numpy(),
            "cost": _floats(raw["cost"]),
            "working_time": _floats(raw["working_time"]),
        }
    )


def _joined(coverages: Sequence[Coverage], logs: pd.DataFrame) -> Coverage:
    """One run's coverage from its logs' (one per shard): what any of them judged or was given."""

    def union(sets: Iterator[frozenset[str]]) -> frozenset[str]:
        return frozenset().union(*sets)

    judged = union(c.judged for c in coverages)
    errored = union(c.errored for c in coverages) - judged
    return Coverage(
        judged=judged,
        errored=errored,
        cancelled=union(c.cancelled for c in coverages) - judged - errored,
        selected=union(c.selected for c in coverages),
        selection=" ".join(dict.fromkeys(c.selection for c in coverages if c.selection)),
        stopped_by=next((c.stopped_by for c in coverages if c.stopped_by), None),
        shards=tuple(logs["shard"]),
        unfinished=tuple(
            shard
            for shard, status, c in zip(logs["shard"], logs["status"], coverages, strict=True)
            if shard is not None and (status != "success" or c.selected - c.judged)
        ),
    )


_SHARD_FOLDER = re.compile(r"shard-\d+-of-\d+")


def given_log_dir(location: str) -> str:
    """The folder `judge-matrix --log-dir` was given for a shard's log (URLs too)."""
    folder = location.rpartition("/")[0] or "."
    parent, _, name = folder.rpartition("/")
    return parent if parent and _SHARD_FOLDER.fullmatch(name) else folder


def _run_row(logs: pd.DataFrame) -> dict[str, Any]:
    """One run's row of `Runs.logs` from its logs' (best last)."""
    statuses = [str(status) for status in logs["status"]]
    sharded = any(shard is not None for shard in logs["shard"])
    best = logs.iloc[-1]
    return {
        "version": best["version"],
        "model": best["model"],
        # The gate's retry hint runs a shard again into the folder its shards share.
        "log": ", ".join(dict.fromkeys(given_log_dir(str(f)) for f in logs["log"]))
        if sharded
        else best["log"],
        "status": next((status for status in statuses if status != "success"), "success"),
        "epochs": best["epochs"],
        "errored": int(logs["errored"].sum()),
        "prompt_tokens": int(logs["prompt_tokens"].sum()),
        "completion_tokens": int(logs["completion_tokens"].sum()),
        "total_cost": float(logs["total_cost"].astype(float).sum(min_count=1)),
    }


def _overlapping(shards: Sequence[Shard | None]) -> bool:
    """Whether the logs may judge a case twice: an unsharded log beside shards, or two splits."""
    return len(shards) > 1 and (None in shards or len({s.count for s in shards if s}) > 1)


def _chosen_samples(
    evals: pd.DataFrame, left_out: list[LeftOut]
) -> tuple[pd.DataFrame, list[str], list[pd.DataFrame]]:
    """The logs chosen for each run, the notes on choosing them, and their samples.

    A chosen log whose samples cannot be read is left out and its run chosen again without
    it, so another log of the same shard, if any, stands in; each log is read once.
    """
    read: dict[str, pd.DataFrame] = {}
    while True:
        notes: list[str] = []
        chosen = _choose_logs(evals, notes)
        pending = chosen[~chosen["log"].astype(str).isin(read)].drop_duplicates("log")
        found = map_logs(
            _samples_or_why, [(str(r.log), str(r.eval_id)) for r in pending.itertuples()]
        )
        unread = []
        for row, result in zip(pending.itertuples(), found, strict=True):
            location = str(row.log)
            if isinstance(result, Unusable):
                run = (str(row.version), str(row.model))
                _leave_out(LeftOut(location, result, run), bool(row.named), left_out)
                unread.append(location)
            else:
                read[location] = result
        if not unread:
            return chosen, notes, [read[str(location)] for location in chosen["log"]]
        evals = evals[~evals["log"].isin(unread)]
        if evals.empty:
            raise LogsError(f"no {TASK} log left to compare: each is left out", left_out)


def _samples_or_why(location: str, eval_id: str) -> pd.DataFrame | Unusable:
    """One log's samples, or why they cannot be read: a worker returns what it found, so
    that the reason, not an exception that may not pickle, crosses back."""
    try:
        return _read_samples(location, eval_id)
    except READ_ERRORS as err:
        return diagnose(location, err, TASK, reading="its samples")


def load_runs(paths: Sequence[str]) -> Runs:
    """Read every judge_groundedness log under `paths` (log files or folders, local or on any
    filesystem Inspect reads, s3:// too): every header, then each chosen log's samples once.
    The shards of a run (`judge-matrix --shard`) are joined into one run."""
    evals, left_out = _read_evals(paths)
    missing_version = evals["version"].isna()
    if missing_version.any():
        raise LogsError(
            f"{Path(evals[missing_version]['log'].iloc[0]).name}: no prompt_version in the "
            "eval metadata; was it written by this project's task?"
        )
    chosen, notes, frames = _chosen_samples(evals, left_out)
    measured = _measured(chosen)
    raw = pd.concat(frames, ignore_index=True)
    if raw.empty:
        raise LogsError("the logs hold no samples")
    case_sets = [dict(m["case_sha256"]) for m in measured]
    raw = raw.assign(outcome=_outcomes(raw))
    by_eval = dict(tuple(raw.groupby("eval_id", sort=False)))
    coverage = [
        _coverage(row, by_eval.get(row.eval_id, raw.iloc[:0]), case_set)
        for row, case_set in zip(chosen.itertuples(), case_sets, strict=True)
    ]
    errored = raw[raw["outcome"] == "errored"].groupby("eval_id").size()
    usage = [_usage(u) for u in chosen["usage"]]
    chosen = chosen.assign(
        errored=chosen["eval_id"].map(errored).fillna(0).astype(int).to_numpy(),
        prompt_tokens=[prompt for prompt, _, _ in usage],
        completion_tokens=[completion for _, completion, _ in usage],
        total_cost=[cost for _, _, cost in usage],
    )
    samples = _tidy(raw, chosen, case_sets)
    runs = list(chosen.groupby("run", sort=False))
    if any(_overlapping(list(logs["shard"])) for _, logs in runs):
        # Logs in rank order, best last: a case judged twice keeps its best log's rows.
        samples = samples.drop_duplicates(
            ["version", "model", "case", "epoch"], keep="last"
        ).reset_index(drop=True)
    if len({frozenset(c.items()) for c in case_sets}) > 1:
        notes.append(
            "the runs do not all hold the same cases; each comparison uses the cases whose "
            "content is identical on both sides"
        )
    # The newest run's manifest says which versions exist, in what order, fixing what.
    newest = int(np.argmax(chosen["created"].astype(str).to_numpy()))
    manifest = measured[newest]["manifest"]
    if any(m["manifest"] != manifest for m in measured):
        notes.append(
            f"the logs ran with different prompt manifests; versions and pinned cases are "
            f"read from the newest, {Path(str(chosen['log'].iloc[newest])).name}"
        )
    versions = _ordered_versions(set(chosen["version"].astype(str)), manifest["versions"], notes)
    order = {version: i for i, version in enumerate(versions)}
    # In manifest order, whatever order the logs were listed or finished in.
    runs.sort(key=lambda run: (order[str(run[1]["version"].iloc[0])], str(run[1]["model"].iloc[0])))
    keys = [(str(logs["version"].iloc[0]), str(logs["model"].iloc[0])) for _, logs in runs]
    first = {run: i for i, run in enumerate(chosen["run"])}
    return Runs(
        samples=samples,
        logs=pd.DataFrame([_run_row(logs) for _, logs in runs]),
        # A shard records its run's whole case set.
        case_sets={key: case_sets[first[run]] for key, (run, _) in zip(keys, runs, strict=True)},
        coverage={
            key: _joined([coverage[i] for i in logs.index], logs)
            for key, (_, logs) in zip(keys, runs, strict=True)
        },
        versions=versions,
        current=str(manifest["current"]),
        models=sorted(set(chosen["model"].astype(str))),
        pinned={v: list(cases) for v, cases in manifest["pinned"].items()},
        notes=notes,
        left_out=left_out,
        log_files={
            key: [
                (str(location), coverage[i].selected)
                for i, location in zip(logs.index, logs["log"], strict=True)
            ]
            for key, (_, logs) in zip(keys, runs, strict=True)
            if len(logs) > 1
        },
    )
