"""Graded scores made up on purpose: arrays of gold and scores of one kind, and rows of runs
whose graded score ranks the cases at random (v1) or every ungrounded one first (v2)."""

import zlib
from collections.abc import Mapping

import numpy as np

from tests.support.frame_rows import row


def scripted_scores(kind: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """144 cases (the gold set's size), about 40 % ungrounded, scores of one kind."""
    rng = np.random.default_rng(seed)
    gold = (rng.random(144) < 0.4).astype(float)
    signal = np.clip(0.35 * gold + 0.65 * rng.random(144), 0, 1)
    scores = {
        "continuous": signal,
        # Ties within and across classes.
        "tenths": np.round(signal, 1),
        # The share of three epochs saying ungrounded.
        "three epochs": np.round(signal * 3) / 3,
        # One epoch: the verdict itself.
        "verdict": np.round(signal),
        "constant": np.full(144, 0.5),
    }
    return gold, scores[kind]


GOLD = [1, 0] * 10
"""Twenty cases, every other one ungrounded."""


def score_of(version: str, case: int, gold: int) -> float:
    """v1 ranks the cases at random; v2 puts every ungrounded one above every grounded one."""
    noise = zlib.crc32(f"{version}/{case}".encode()) % 100 / 100
    return 0.5 + 0.4 * noise if version == "v2" and gold else 0.4 * noise + 0.3 * (version == "v1")


def graded_rows(
    version: str, wrong: int = 0, changes: Mapping[str, Mapping[str, object]] | None = None
) -> list[dict[str, object]]:
    """Every case judged right but the first `wrong` ones, each with its graded score; `changes`
    overrides columns of named cases."""
    rows = []
    for i, gold in enumerate(GOLD):
        judged = 1 - gold if i < wrong else gold
        found = row(
            f"c-{i:02}",
            gold,
            judged,
            version=version,
            p_ungrounded=score_of(version, i, gold),
            graded_source="logprobs",
        )
        rows.append({**found, **(changes or {}).get(str(found["case"]), {})})
    return rows
