"""Logs → one tidy frame with a row per (version, model, case, epoch), through Inspect's API.

Rows are per epoch on purpose: epoch-reduced scores would hide how often a verdict
changes between epochs, and averaging first would lose the confusion counts.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from inspect_ai.analysis import EvalColumn, SampleColumn, evals_df, samples_df
from numpy.typing import NDArray

from evals.prompt_versions import load_manifest

TASK = "judge_groundedness"
SCORER = "verdict_agreement"
_VALUE = f"scores.{SCORER}.value"


class LogsError(Exception):
    """The logs cannot be compared; the message says why in one line."""


@dataclass(frozen=True)
class Runs:
    samples: pd.DataFrame
    """One row per version, model, case and epoch. Columns: version, model, case, category,
    epoch; gold_ungrounded, agree, failure (1 for no readable verdict or a sample error;
    never agreement), judge_ungrounded (NaN on a failure); claims_gold, claims_judge,
    claims_matched; verdict (the judge's verdict in words, or why there is none)."""
    logs: pd.DataFrame
    """The log read for each version and model: version, model, log, status, epochs."""
    versions: list[str]
    """In manifest order; versions the manifest does not know come last."""
    models: list[str]
    pinned: dict[str, list[str]]
    """Every manifest version, in manifest order → the cases it says it fixed."""
    notes: list[str]
    """What a reader must know about the logs (superseded, incomplete, mixed case sets)."""


_EVAL_COLUMNS = [
    EvalColumn("eval_id", path="eval.eval_id", required=True),
    EvalColumn("task", path="eval.task", required=True),
    EvalColumn("version", path="eval.metadata.prompt_version"),
    EvalColumn("model", path="eval.model", required=True),
    EvalColumn("status", path="status", required=True),
    EvalColumn("created", path="eval.created", required=True),
    EvalColumn("epochs", path="eval.config.epochs"),
]

_SAMPLE_COLUMNS = [
    SampleColumn("case", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("category", path="metadata.category"),
    SampleColumn("target", path="target", required=True),
    SampleColumn("agree", path=f"{_VALUE}.agree"),
    SampleColumn("failure", path=f"{_VALUE}.judge_failure"),
    SampleColumn("judge_ungrounded", path=f"{_VALUE}.judge_ungrounded"),
    SampleColumn("claims_judge", path=f"{_VALUE}.claims_judge"),
    SampleColumn("claims_matched", path=f"{_VALUE}.claims_matched"),
    SampleColumn("verdict", path=f"scores.{SCORER}.answer"),
    SampleColumn("error", path="error"),
]


def _floats(column: pd.Series) -> NDArray[np.float64]:
    values: NDArray[np.float64] = column.to_numpy(dtype=float, na_value=np.nan)
    return values


def _read_evals(paths: Sequence[str]) -> pd.DataFrame:
    for path in paths:
        if not Path(path).exists():
            raise LogsError(f"{path}: no such log file or folder")
    try:
        evals = evals_df(list(paths), columns=_EVAL_COLUMNS, quiet=True)
    except Exception as err:
        raise LogsError(f"cannot read the logs in {', '.join(paths)}: {err}") from err
    if evals.empty:
        raise LogsError(f"no Inspect logs in {', '.join(paths)}")
    evals = evals[[str(task).split("/")[-1] == TASK for task in evals["task"]]]
    if evals.empty:
        raise LogsError(f"no {TASK} logs in {', '.join(paths)}")
    return evals


def _choose_logs(evals: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """The newest successful log per version and model, else the newest log at all.

    An eval set that retried a run leaves the failed attempt beside the good one; a run
    that never succeeded is still read, so its missing cases are seen, and noted.
    """
    chosen = []
    for (version, model), group in evals.groupby(["version", "model"], sort=False):
        ranked = group.assign(ok=group["status"] == "success").sort_values(["ok", "created"])
        best = ranked.iloc[-1]
        if not best["ok"]:
            notes.append(
                f"{version} on {model}: no successful log; read {Path(best['log']).name}, "
                f"whose status is '{best['status']}'"
            )
        if len(group) > 1:
            notes.append(
                f"{version} on {model}: {len(group) - 1} other log(s) for the same run ignored"
            )
        chosen.append(best)
    return pd.DataFrame(chosen).reset_index(drop=True)


def _ordered_versions(present: set[str], notes: list[str]) -> list[str]:
    known = [v for v in load_manifest().versions if v in present]
    unknown = sorted(present - set(known))
    for version in unknown:
        notes.append(f"version {version} is not in the prompt manifest; it is placed last")
    return known + unknown


def _tidy(raw: pd.DataFrame, logs: pd.DataFrame) -> pd.DataFrame:
    gold = [json.loads(t) for t in raw["target"]]
    scored = ~raw["agree"].isna().to_numpy()
    failure = np.where(scored, _floats(raw["failure"]), 1.0)
    errors = raw["error"].fillna("").astype(str)
    verdicts = raw["verdict"].astype(object).where(scored, "sample error: " + errors)
    by_eval = logs.set_index("eval_id")
    return pd.DataFrame(
        {
            "version": raw["eval_id"].map(by_eval["version"]).astype(str).to_numpy(),
            "model": raw["eval_id"].map(by_eval["model"]).astype(str).to_numpy(),
            "case": raw["case"].astype(str).to_numpy(),
            "category": raw["category"].astype(str).to_numpy(),
            "epoch": raw["epoch"].to_numpy(dtype=int),
            "gold_ungrounded": [float(not g["grounded"]) for g in gold],
            "agree": np.where(scored, _floats(raw["agree"]), 0.0),
            "failure": failure,
            "judge_ungrounded": np.where(failure > 0, np.nan, _floats(raw["judge_ungrounded"])),
            "claims_gold": [float(len(g["unsupported_claims"])) for g in gold],
            "claims_judge": np.nan_to_num(_floats(raw["claims_judge"])),
            "claims_matched": np.nan_to_num(_floats(raw["claims_matched"])),
            "verdict": verdicts.astype(str).to_numpy(),
        }
    )


def load_runs(paths: Sequence[str]) -> Runs:
    """Read every judge_groundedness log under `paths` (log files or folders)."""
    notes: list[str] = []
    evals = _read_evals(paths)
    missing_version = evals["version"].isna()
    if missing_version.any():
        raise LogsError(
            f"{Path(evals[missing_version]['log'].iloc[0]).name}: no prompt_version in the "
            "eval metadata; was it written by this project's task?"
        )
    logs = _choose_logs(evals, notes)
    raw = samples_df(list(logs["log"]), columns=_SAMPLE_COLUMNS, quiet=True)
    if raw.empty:
        raise LogsError("the logs hold no samples")
    samples = _tidy(raw, logs)
    case_sets = {frozenset(g) for _, g in samples.groupby(["version", "model"])["case"]}
    if len(case_sets) > 1:
        notes.append(
            "the runs do not all cover the same cases; each comparison uses the cases "
            "both sides ran"
        )
    manifest = load_manifest()
    return Runs(
        samples=samples,
        logs=logs[["version", "model", "log", "status", "epochs"]],
        versions=_ordered_versions(set(samples["version"]), notes),
        models=sorted(set(samples["model"])),
        pinned={v: list(e.motivating_cases) for v, e in manifest.versions.items()},
        notes=notes,
    )
