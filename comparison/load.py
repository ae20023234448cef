"""Logs → one tidy frame with a row per (version, model, case, epoch), through Inspect's API.

Rows are per epoch on purpose: epoch-reduced scores would hide how often a verdict
changes between epochs, and averaging first would lose the confusion counts.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from inspect_ai.analysis import EvalColumn, SampleColumn, evals_df, samples_df
from numpy.typing import NDArray

TASK = "judge_groundedness"
SCORER = "verdict_agreement"
_VALUE = f"scores.{SCORER}.value"
SPAN_COUNTS = ("span_judge_chars", "span_gold_chars", "span_overlap_chars")
"""The scorer's character counts behind span precision and recall."""


class LogsError(Exception):
    """The logs cannot be compared; the message says why in one line."""


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


@dataclass(frozen=True)
class Runs:
    samples: pd.DataFrame
    """One row per scored version, model, case and epoch. Columns: version, model, case,
    case_hash, category, epoch; gold_ungrounded, agree, failure (1 for no readable verdict;
    never agreement), judge_ungrounded (NaN on a failure); claims_gold, claims_judge,
    claims_matched; span_judge_chars, span_gold_chars, span_overlap_chars (NaN in a log
    written before span scores); verdict (the judge's verdict in words, or why there is
    none); p_ungrounded (the judge's graded P(ungrounded), NaN where it has none) and
    graded_source (logprobs, epochs or none). A sample that errored (the provider failed, not the judge) is not here: `logs`
    counts it."""
    logs: pd.DataFrame
    """The log read for each version and model: version, model, log, status, epochs,
    errored (samples that errored and were not scored; a sample cancelled when the run
    stopped is not counted), prompt_tokens and completion_tokens (the run's totals, from its
    usage)."""
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


_EVAL_COLUMNS = [
    EvalColumn("eval_id", path="eval.eval_id", required=True),
    EvalColumn("task", path="eval.task", required=True),
    EvalColumn("version", path="eval.metadata.prompt_version"),
    EvalColumn("model", path="eval.model", required=True),
    EvalColumn("status", path="status", required=True),
    EvalColumn("created", path="eval.created", required=True),
    EvalColumn("epochs", path="eval.config.epochs"),
    EvalColumn("completed", path="results.completed_samples"),
    EvalColumn("finished", path="stats.completed_at"),
    EvalColumn("usage", path="stats.model_usage"),
    EvalColumn("error", path="error.message"),
    EvalColumn("selected", path="eval.dataset.sample_ids"),
    EvalColumn("limit", path="eval.config.limit"),
    EvalColumn("sample_id", path="eval.config.sample_id"),
    # What the run measured, as the task recorded it: read here with the rest of the header,
    # so no log is opened twice.
    *[EvalColumn(key, path=f"eval.metadata.{key}") for key in ("case_sha256", "manifest")],
]
# Inspect logs a sample cancelled in flight (the run stopping on another sample's error) with
# the repr of the backend's cancellation as its error: asyncio's or trio's.
_CANCELLED = ("CancelledError(", "Cancelled(")

_SAMPLE_COLUMNS = [
    SampleColumn("case", path="id", required=True, type=str),
    SampleColumn("epoch", path="epoch", required=True),
    SampleColumn("category", path="metadata.category"),
    SampleColumn("relation", path="metadata.relation"),
    SampleColumn("target", path="target", required=True),
    SampleColumn("agree", path=f"{_VALUE}.agree"),
    SampleColumn("failure", path=f"{_VALUE}.judge_failure"),
    SampleColumn("judge_ungrounded", path=f"{_VALUE}.judge_ungrounded"),
    SampleColumn("claims_judge", path=f"{_VALUE}.claims_judge"),
    SampleColumn("claims_matched", path=f"{_VALUE}.claims_matched"),
    SampleColumn("p_ungrounded", path=f"{_VALUE}.p_ungrounded"),
    SampleColumn("graded_source", path=f"{_VALUE}.graded_source"),
    *[SampleColumn(key, path=f"{_VALUE}.{key}") for key in SPAN_COUNTS],
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
        # By when the run finished: a retry keeps its original's creation time. Timestamps
        # have whole seconds, so a retry finished within the second of its original is told
        # apart by the samples it completed.
        ranked = group.assign(
            ok=group["status"] == "success",
            # Numeric even when no log of the group has results (each stopped midway).
            done=pd.to_numeric(group["completed"]).fillna(0),
            at=group["finished"].fillna("").astype(str),
        ).sort_values(["ok", "at", "done"])
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


def _measured(logs: pd.DataFrame) -> list[dict[str, Any]]:
    """Each chosen log's record of its case set and manifest; an older log has none."""
    found = []
    for row in logs.itertuples():
        missing = [key for key in ("case_sha256", "manifest") if pd.isna(getattr(row, key))]
        if missing:
            raise LogsError(
                f"{Path(str(row.log)).name}: no {missing[0]} in the eval metadata, so what it "
                "measured is unknown; it was written by an older version of this task: "
                "run it again"
            )
        found.append(
            {"case_sha256": json.loads(row.case_sha256), "manifest": json.loads(row.manifest)}
        )
    return found


def _option(value: object) -> str:
    """A `--limit` or `--sample-id` value as given on the command line: `10`, `2,5`, `a,b`."""
    if isinstance(value, str) and value.startswith("["):
        return ",".join(str(v) for v in json.loads(value))
    return str(int(value)) if isinstance(value, float) else str(value)


def _selection(limit: object, sample_id: object) -> str:
    options = [("--limit", limit), ("--sample-id", sample_id)]
    return " ".join(f"{name} {_option(value)}" for name, value in options if not pd.isna(value))


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
    epochs = 1 if pd.isna(row.epochs) else int(row.epochs)

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
        if pd.isna(row.selected)
        else frozenset(str(case) for case in json.loads(row.selected)),
        selection=_selection(row.limit, row.sample_id),
        stopped_by=None if pd.isna(row.error) else str(row.error),
    )


def _tokens(usage: object) -> tuple[int, int]:
    """A run's prompt and completion tokens over every model it called, from its log."""
    models = json.loads(usage) if isinstance(usage, str) else {}
    return (
        sum(int(u.get("input_tokens", 0)) for u in models.values()),
        sum(int(u.get("output_tokens", 0)) for u in models.values()),
    )


def _ordered_versions(present: set[str], manifest: list[str], notes: list[str]) -> list[str]:
    known = [v for v in manifest if v in present]
    unknown = sorted(present - set(known))
    for version in unknown:
        notes.append(f"version {version} is not in the prompt manifest; it is placed last")
    return known + unknown


def _tidy(raw: pd.DataFrame, logs: pd.DataFrame, case_sets: list[dict[str, str]]) -> pd.DataFrame:
    """The scored samples; an errored sample has no score and is counted in `logs` instead."""
    raw = raw[~raw["agree"].isna()]
    gold = [json.loads(t) for t in raw["target"]]
    failure = _floats(raw["failure"])
    by_eval = logs.set_index("eval_id")
    hashes = dict(zip(logs["eval_id"], case_sets, strict=True))
    return pd.DataFrame(
        {
            "version": raw["eval_id"].map(by_eval["version"]).astype(str).to_numpy(),
            "model": raw["eval_id"].map(by_eval["model"]).astype(str).to_numpy(),
            "case": raw["case"].astype(str).to_numpy(),
            "case_hash": [
                hashes[e].get(str(c)) for e, c in zip(raw["eval_id"], raw["case"], strict=True)
            ],
            "category": raw["category"].astype(str).to_numpy(),
            # Logs from before the metamorphic suite hold gold cases only.
            "relation": raw["relation"].fillna("gold").astype(str).to_numpy(),
            "epoch": raw["epoch"].to_numpy(dtype=int),
            "gold_ungrounded": [float(not g["grounded"]) for g in gold],
            "agree": _floats(raw["agree"]),
            "failure": failure,
            "judge_ungrounded": np.where(failure > 0, np.nan, _floats(raw["judge_ungrounded"])),
            "claims_gold": [float(len(g["unsupported_claims"])) for g in gold],
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
    measured = _measured(logs)
    raw = samples_df(list(logs["log"]), columns=_SAMPLE_COLUMNS, quiet=True)
    if raw.empty:
        raise LogsError("the logs hold no samples")
    case_sets = [dict(m["case_sha256"]) for m in measured]
    raw = raw.assign(outcome=_outcomes(raw))
    by_eval = dict(tuple(raw.groupby("eval_id", sort=False)))
    coverage = [
        _coverage(row, by_eval.get(row.eval_id, raw.iloc[:0]), case_set)
        for row, case_set in zip(logs.itertuples(), case_sets, strict=True)
    ]
    errored = raw[raw["outcome"] == "errored"].groupby("eval_id").size()
    logs = logs.assign(errored=logs["eval_id"].map(errored).fillna(0).astype(int).to_numpy())
    samples = _tidy(raw, logs, case_sets)
    if len({frozenset(c.items()) for c in case_sets}) > 1:
        notes.append(
            "the runs do not all hold the same cases; each comparison uses the cases whose "
            "content is identical on both sides"
        )
    # The newest run's manifest says which versions exist, in what order, fixing what.
    newest = int(np.argmax(logs["created"].astype(str).to_numpy()))
    manifest = measured[newest]["manifest"]
    if any(m["manifest"] != manifest for m in measured):
        notes.append(
            f"the logs ran with different prompt manifests; versions and pinned cases are "
            f"read from the newest, {Path(str(logs['log'].iloc[newest])).name}"
        )
    tokens = [_tokens(usage) for usage in logs["usage"]]
    logs = logs.assign(
        prompt_tokens=[prompt for prompt, _ in tokens],
        completion_tokens=[completion for _, completion in tokens],
    )
    keys = list(zip(logs["version"].astype(str), logs["model"].astype(str), strict=True))
    return Runs(
        samples=samples,
        logs=logs[
            [
                "version",
                "model",
                "log",
                "status",
                "epochs",
                "errored",
                "prompt_tokens",
                "completion_tokens",
            ]
        ],
        case_sets=dict(zip(keys, case_sets, strict=True)),
        coverage=dict(zip(keys, coverage, strict=True)),
        versions=_ordered_versions(set(logs["version"].astype(str)), manifest["versions"], notes),
        current=str(manifest["current"]),
        models=sorted(set(logs["model"].astype(str))),
        pinned={v: list(cases) for v, cases in manifest["pinned"].items()},
        notes=notes,
    )
