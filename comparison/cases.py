"""The per-case frame: one row per version, model and case, its epochs averaged into shares.

A case is the unit throughout: its epochs are averaged into shares before any figure or
interval, so three epochs of one case never pass for three independent cases. A case is
"right" for a run when the judge agreed with gold in more than half its epochs; a judge
failure is never agreement, so it counts against the version that produced it.
"""

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.scorers.confusion import cells

TOTALS = ["tp", "fn", "fp", "tn", "claims_matched", "claims_judge", "claims_gold"]
TOTALS += ["span_overlap_chars", "span_judge_chars", "span_gold_chars"]
"""The counts each case's row averages over its epochs, for the figures summed over cases."""

VERDICT_KINDS = ("grounded", "ungrounded", "judge failure")
_KIND_COLUMNS = ["_grounded", "_ungrounded", "_judge_failure"]


def _verdict_kinds(samples: pd.DataFrame) -> NDArray[np.float64]:
    """Per case-epoch, 1 in the column of its verdict kind (VERDICT_KINDS) and 0 elsewhere."""
    failed = samples["failure"].to_numpy(dtype=float) != 0
    # NaN counts as ungrounded, as a truth value would.
    ungrounded = ~failed & (samples["judge_ungrounded"].to_numpy(dtype=float) != 0)
    return np.column_stack([~failed & ~ungrounded, ungrounded, failed]).astype(float)


def _modal_verdicts(samples: pd.DataFrame, keys: list[str]) -> pd.Series:
    """Each case's most common verdict over its epochs; a tie goes to the one seen first."""
    # Unsorted groups come in order of first appearance, and a stable sort keeps that order
    # among equal counts.
    counted = samples.groupby([*keys, "verdict"], sort=False).size().rename("n").reset_index()
    counted = counted.sort_values("n", ascending=False, kind="stable")
    return counted.drop_duplicates(keys).set_index(keys)["verdict"].astype(str)


def epoch_cells(samples: pd.DataFrame) -> tuple[NDArray[np.float64], ...]:
    """Each case-epoch's (tp, fn, fp, tn) contribution; a judge failure adds to none."""
    answered = 1 - samples["failure"].to_numpy(dtype=float)
    gold = samples["gold_ungrounded"].to_numpy(dtype=float)
    judged = samples["judge_ungrounded"].fillna(0).to_numpy(dtype=float)
    return cells(answered, gold, judged)


def per_case(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per version, model and case: epoch shares, totals and the modal verdict."""
    keys = ["version", "model", "case"]
    tp, fn, fp, tn = epoch_cells(samples)
    kinds = _verdict_kinds(samples)
    rows = samples.assign(
        tp=tp, fn=fn, fp=fp, tn=tn, **dict(zip(_KIND_COLUMNS, kinds.T, strict=True))
    )
    grouped = rows.groupby(keys, sort=False)
    cases = grouped[["agree", "failure", "gold_ungrounded", *TOTALS]].mean()
    # The mean over the epochs that have one: a case's graded score is NaN only where none has.
    cases["p_ungrounded"] = grouped["p_ungrounded"].mean()
    cases["graded_source"] = grouped["graded_source"].first()
    cases["case_hash"] = grouped["case_hash"].first()
    cases["category"] = grouped["category"].first()
    cases["relation"] = grouped["relation"].first()
    cases["epochs"] = grouped.size()
    cases["failed_epochs"] = grouped["failure"].sum()
    cases["verdict"] = _modal_verdicts(samples, keys).reindex(cases.index)
    counts = grouped[_KIND_COLUMNS].sum().to_numpy(dtype=int)
    cases["kinds"] = [
        {kind: int(n) for kind, n in zip(VERDICT_KINDS, row, strict=True) if n} for row in counts
    ]
    # Epochs giving the case's most common verdict kind: its consistency's numerator.
    cases["modal_epochs"] = counts.max(axis=1)
    cases["right"] = cases["agree"] > 0.5
    return cases.reset_index()


def report_order(cases: pd.DataFrame, versions: list[str]) -> pd.DataFrame:
    """The frame sorted as the report lists runs: versions in manifest order, then model and
    case."""
    order = {v: i for i, v in enumerate(versions)}
    return cases.sort_values(
        ["version", "model", "case"], key=lambda s: s.map(order) if s.name == "version" else s
    ).reset_index(drop=True)
