"""Logs → one tidy frame with a row per (version, model, case, epoch), from Inspect's logs:
the logs chosen (`choose`), their samples read (`read`) and tidied (`tidy`) into `Runs` (`runs`),
whose names are re-exported here.

Rows are per epoch on purpose: epoch-reduced scores would hide how often a verdict
changes between epochs, and averaging first would lose the confusion counts.
"""

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from farejudge.comparison.logs.choose import (
    case_records,
    chosen_samples,
    given_log_dir,
    ordered_versions,
    overlapping,
    read_evals,
    run_row,
)
from farejudge.comparison.logs.read import usage_totals
from farejudge.comparison.logs.runs import (
    SCORER,
    SPAN_COUNTS,
    TASK,
    Coverage,
    LeftOut,
    LogsError,
    Runs,
)
from farejudge.comparison.logs.tidy import coverage_of, joined, outcomes, tidy

__all__ = [
    "SCORER",
    "SPAN_COUNTS",
    "TASK",
    "Coverage",
    "LeftOut",
    "LogsError",
    "Runs",
    "given_log_dir",
    "load_runs",
]


def load_runs(paths: Sequence[str]) -> Runs:
    """Read every judge_groundedness log under `paths` (log files or folders, local or on any
    filesystem Inspect reads, s3:// too): every header, then each chosen log's samples once.
    The shards of a run (`judge-matrix --shard`) are joined into one run."""
    evals, left_out = read_evals(paths)
    missing_version = evals["version"].isna()
    if missing_version.any():
        raise LogsError(
            f"{Path(evals[missing_version]['log'].iloc[0]).name}: no prompt_version in the "
            "eval metadata; was it written by this project's task?"
        )
    chosen, notes, frames = chosen_samples(evals, left_out)
    measured = case_records(chosen)
    raw = pd.concat(frames, ignore_index=True)
    if raw.empty:
        raise LogsError("the logs hold no samples")
    case_sets = [dict(m["case_sha256"]) for m in measured]
    raw = raw.assign(outcome=outcomes(raw))
    by_eval = dict(tuple(raw.groupby("eval_id", sort=False)))
    coverage = [
        coverage_of(row, by_eval.get(row.eval_id, raw.iloc[:0]), case_set)
        for row, case_set in zip(chosen.itertuples(), case_sets, strict=True)
    ]
    errored = raw[raw["outcome"] == "errored"].groupby("eval_id").size()
    usage = [usage_totals(u) for u in chosen["usage"]]
    chosen = chosen.assign(
        errored=chosen["eval_id"].map(errored).fillna(0).astype(int).to_numpy(),
        prompt_tokens=[prompt for prompt, _, _ in usage],
        completion_tokens=[completion for _, completion, _ in usage],
        total_cost=[cost for _, _, cost in usage],
    )
    samples = tidy(raw, chosen, case_sets)
    runs = list(chosen.groupby("run", sort=False))
    if any(overlapping(list(logs["shard"])) for _, logs in runs):
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
    versions = ordered_versions(set(chosen["version"].astype(str)), manifest["versions"], notes)
    order = {version: i for i, version in enumerate(versions)}
    # In manifest order, whatever order the logs were listed or finished in.
    runs.sort(key=lambda run: (order[str(run[1]["version"].iloc[0])], str(run[1]["model"].iloc[0])))
    keys = [(str(logs["version"].iloc[0]), str(logs["model"].iloc[0])) for _, logs in runs]
    first = {run: i for i, run in enumerate(chosen["run"])}
    return Runs(
        samples=samples,
        logs=pd.DataFrame([run_row(logs) for _, logs in runs]),
        # A shard records its run's whole case set.
        case_sets={key: case_sets[first[run]] for key, (run, _) in zip(keys, runs, strict=True)},
        coverage={
            key: joined([coverage[i] for i in logs.index], logs)
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
