"""Hand-made rows of the comparison's tidy frame, for figures worked out by hand."""

import math

import pandas as pd

from farejudge.comparison.logs.frame import Coverage, Runs


def row(
    case: str,
    gold: int,
    judged: int,
    version: str = "v1",
    epoch: int = 1,
    failure: int = 0,
    model: str = "m",
    p_ungrounded: float = math.nan,
    graded_source: str = "none",
    cost: float = math.nan,
    working_time: float = math.nan,
) -> dict[str, object]:
    """One epoch of one case: gold and judge as 1 for ungrounded, 0 for grounded; no graded
    score unless `p_ungrounded` gives one; no cost or timing of its call unless given."""
    return {
        "version": version,
        "model": model,
        "case": case,
        "case_hash": f"hash-{case}",
        "category": case.split("-")[0],
        "relation": "gold",
        # A gold case: no attack family, parent or direction (the adversarial suite's).
        "family": None,
        "derived_from": None,
        "direction": None,
        "epoch": epoch,
        "gold_ungrounded": float(gold),
        "agree": float(not failure and gold == judged),
        "failure": float(failure),
        "judge_ungrounded": math.nan if failure else float(judged),
        "claims_gold": float(gold),
        "claims_judge": float(judged if not failure else 0),
        "claims_matched": float(gold and judged and not failure),
        # As if every claim were ten characters and the judge quoted gold's exactly.
        "span_judge_chars": 10.0 * (judged and not failure),
        "span_gold_chars": 10.0 * gold,
        "span_overlap_chars": 10.0 * (gold and judged and not failure),
        "verdict": "judge failure" if failure else ("ungrounded" if judged else "grounded"),
        "p_ungrounded": p_ungrounded,
        "graded_source": graded_source,
        "cost": cost,
        "working_time": working_time,
    }


def runs(
    rows: list[dict[str, object]],
    pinned: dict[str, list[str]] | None = None,
    status: dict[tuple[str, str], str] | None = None,
    errored: dict[tuple[str, str], list[str]] | None = None,
    selected: dict[tuple[str, str], list[str]] | None = None,
) -> Runs:
    """Runs of the rows; every (version, model) log succeeded unless `status` says not, and
    had no errored sample unless `errored` names the cases that errored. Each run's case set is
    every case the rows name for its model, all given to the run unless `selected` names the
    ones a `--limit 2` gave it: a case a run has no row for was not scored there."""
    samples = pd.DataFrame(rows)
    pairs = sorted(set(zip(samples["version"], samples["model"], strict=True)))
    status = status or {}
    errored = errored or {}
    case_sets = {
        (v, m): dict(zip(cases["case"], cases["case_hash"], strict=True))
        for v, m in pairs
        for cases in [samples[samples["model"] == m]]
    }
    return Runs(
        samples=samples,
        logs=pd.DataFrame(
            {
                "version": [v for v, _ in pairs],
                "model": [m for _, m in pairs],
                "log": [f"{v}-{m}.eval" for v, m in pairs],
                "status": [status.get(p, "success") for p in pairs],
                "epochs": [1 for _ in pairs],
                "errored": [len(errored.get(p, [])) for p in pairs],
                "prompt_tokens": [0 for _ in pairs],
                "completion_tokens": [0 for _ in pairs],
                # As a run without --model-cost-config records it: no cost.
                "total_cost": [math.nan for _ in pairs],
            }
        ),
        case_sets=case_sets,
        coverage={
            (v, m): Coverage(
                judged=frozenset(
                    samples[(samples["version"] == v) & (samples["model"] == m)]["case"]
                ),
                errored=frozenset(errored.get((v, m), [])),
                cancelled=frozenset(),
                selected=frozenset((selected or {}).get((v, m), case_sets[(v, m)])),
                selection="--limit 2" if (v, m) in (selected or {}) else "",
                stopped_by=None,
            )
            for v, m in pairs
        },
        versions=sorted({v for v, _ in pairs}),
        models=sorted({m for _, m in pairs}),
        current="v3",
        pinned=pinned or {"v1": [], "v2": [], "v3": []},
        notes=[],
    )
