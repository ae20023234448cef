"""Choosing the logs to compare: every log's header, the files left out, and per version and
model the run's logs (per shard the newest successful), read again without a log whose
samples cannot be read.
"""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from farejudge.comparison.logs.read import samples_or_why
from farejudge.comparison.logs.runs import TASK, LeftOut, LogsError
from farejudge.core.shards import Shard, parse_shard
from farejudge.shared.logs.headers import INSPECT_FILES, NotALog, log_files, read_header
from farejudge.shared.logs.unusable import READ_ERRORS, Unusable, another_task, diagnose
from farejudge.shared.logs.workers import map_logs


def _log_files(paths: Sequence[str]) -> dict[str, bool]:
    try:
        return log_files(paths)
    except NotALog as err:
        raise LogsError(str(err)) from None


def leave_out(item: LeftOut, named: bool, left_out: list[LeftOut]) -> None:
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


def read_evals(paths: Sequence[str]) -> tuple[pd.DataFrame, list[LeftOut]]:
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
            leave_out(LeftOut(location, why), named, left_out)
            continue
        if str(record["task"]).split("/")[-1] == TASK:
            records.append({**record, "named": named})
        else:
            leave_out(LeftOut(location, another_task(str(record["task"]))), named, left_out)
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


def case_records(logs: pd.DataFrame) -> list[dict[str, Any]]:
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


_SHARD_FOLDER = re.compile(r"shard-\d+-of-\d+")


def given_log_dir(location: str) -> str:
    """The folder `judge-matrix --log-dir` was given for a shard's log (URLs too)."""
    folder = location.rpartition("/")[0] or "."
    parent, _, name = folder.rpartition("/")
    return parent if parent and _SHARD_FOLDER.fullmatch(name) else folder


def run_row(logs: pd.DataFrame) -> dict[str, Any]:
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


def overlapping(shards: Sequence[Shard | None]) -> bool:
    """Whether the logs may judge a case twice: an unsharded log beside shards, or two splits."""
    return len(shards) > 1 and (None in shards or len({s.count for s in shards if s}) > 1)


def chosen_samples(
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
            samples_or_why, [(str(r.log), str(r.eval_id)) for r in pending.itertuples()]
        )
        unread = []
        for row, result in zip(pending.itertuples(), found, strict=True):
            location = str(row.log)
            if isinstance(result, Unusable):
                run = (str(row.version), str(row.model))
                leave_out(LeftOut(location, result, run), bool(row.named), left_out)
                unread.append(location)
            else:
                read[location] = result
        if not unread:
            return chosen, notes, [read[str(location)] for location in chosen["log"]]
        evals = evals[~evals["log"].isin(unread)]
        if evals.empty:
            raise LogsError(f"no {TASK} log left to compare: each is left out", left_out)


def ordered_versions(present: set[str], manifest: list[str], notes: list[str]) -> list[str]:
    known = [v for v in manifest if v in present]
    unknown = sorted(present - set(known))
    for version in unknown:
        notes.append(f"version {version} is not in the prompt manifest; it is placed last")
    return known + unknown
