"""Tidying the samples read: each sample's outcome, what each log and each run judged, and the
frame of the scored samples, a row per (version, model, case, epoch).
"""

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.logs.read import ATTACK
from farejudge.comparison.logs.runs import SPAN_COUNTS, Coverage
from farejudge.core.sample_case import ANNOTATIONS_KEY, GOLD_RELATION

_CANCELLED = ("CancelledError(", "Cancelled(")


def _floats(column: pd.Series) -> NDArray[np.float64]:
    values: NDArray[np.float64] = column.to_numpy(dtype=float, na_value=np.nan)
    return values


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


def outcomes(raw: pd.DataFrame) -> NDArray[np.str_]:
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


def coverage_of(row: Any, samples: pd.DataFrame, case_set: dict[str, str]) -> Coverage:
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


def tidy(raw: pd.DataFrame, logs: pd.DataFrame, case_sets: list[dict[str, str]]) -> pd.DataFrame:
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
            "relation": raw["relation"].fillna(GOLD_RELATION).astype(str).to_numpy(),
            # An attacked case's family, parent and the verdict it argues for; None elsewhere.
            **{key: raw[key].to_numpy(dtype=object) for key in ATTACK},
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
            # Each annotator's verdict, on a case that has several (the contested set).
            ANNOTATIONS_KEY: raw[ANNOTATIONS_KEY].to_numpy(dtype=object),
        }
    )


def joined(coverages: Sequence[Coverage], logs: pd.DataFrame) -> Coverage:
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
