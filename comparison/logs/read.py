"""Reading one chosen log's samples, only the columns the comparison uses, in one streaming
pass, and its usage: what one run cost.
"""

import math
from typing import Any

import pandas as pd

from farejudge.comparison.logs.runs import (
    SCORER,
    SPAN_COUNTS,
    TASK,
)
from farejudge.core.sample_case import ANNOTATIONS_KEY
from farejudge.shared.logs.headers import Usage
from farejudge.shared.logs.summaries import log_samples, whole_samples
from farejudge.shared.logs.unusable import READ_ERRORS, Unusable, diagnose

ATTACK = ("family", "derived_from", "direction")
"""An attacked sample's metadata (`-T suite=adversarial`); None on any other sample."""

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
    *("case", "epoch", "category", "relation", *ATTACK, *_VALUE_KEYS, "verdict", "error"),
    *("cost", "working_time", ANNOTATIONS_KEY),
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
        *(metadata.get(key) for key in ATTACK),
        *(value.get(key) for key in _VALUE_KEYS),
        score.get("answer"),
        error,
        _sample_cost(sample.get("model_usage") or {}),
        sample.get("working_time"),
        metadata.get(ANNOTATIONS_KEY),
    )


def _sample_cost(usage: dict[str, Any]) -> float | None:
    """What one sample's calls cost over every model it called, as Inspect priced them; None
    where no call was priced (a run without `--model-cost-config`)."""
    costs = [u["total_cost"] for u in usage.values() if u.get("total_cost") is not None]
    return float(sum(costs)) if costs else None


def _whole_annotations(location: str, frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` with every case's annotators, where its summaries dropped them.

    Inspect's sample summaries keep a metadata value of 1 KB at most (`thin_metadata`: a
    larger one reads "Key removed from summary (> 1k)"), about nine annotators' labels. Such a
    case's annotators are read from one of its whole samples: a case's annotators are the
    same in every epoch, so one sample a case, only for those cases, in one opening of the
    log."""
    thinned = frame[ANNOTATIONS_KEY].map(lambda value: isinstance(value, str))
    if not thinned.any():
        return frame
    wanted = frame.loc[thinned, ["case", "epoch"]].drop_duplicates("case")
    keys = [(str(case), int(epoch)) for case, epoch in wanted.itertuples(index=False)]
    whole: dict[str, Any] = {}
    for (case, epoch), sample in whole_samples(location, keys):
        found = _metadata_of(location, case, epoch) if sample is None else sample["metadata"]
        whole[case] = (found or {}).get(ANNOTATIONS_KEY)
    values = [
        whole[case] if is_thinned else value
        for case, value, is_thinned in zip(
            frame["case"], frame[ANNOTATIONS_KEY], thinned, strict=True
        )
    ]
    return frame.assign(**{ANNOTATIONS_KEY: pd.Series(values, index=frame.index, dtype=object)})


def _metadata_of(location: str, case: str, epoch: int) -> dict[str, Any] | None:
    """A sample's metadata through Inspect's reader, for a sample stored in a shape other than
    one member."""
    # Imported here: Inspect takes seconds to import, and only such a sample needs it.
    from inspect_ai.log import read_eval_log_sample

    try:
        sample = read_eval_log_sample(
            location, case, epoch, exclude_fields={"events", "messages", "attachments"}
        )
    except IndexError:
        # Unusable, as a log that is not whole (READ_ERRORS), not a crash.
        raise ValueError(
            f"case {case} epoch {epoch}: its summary dropped its annotators and the log has "
            "no sample to read them from"
        ) from None
    return sample.metadata


def read_samples(location: str, eval_id: str) -> pd.DataFrame:
    """One log's samples, only the columns the comparison uses, in one streaming pass: a .eval
    log's summaries (never its transcripts), and a whole sample only for a case whose
    annotators its summaries dropped; a .json log's samples, each dropped once read."""
    records = [_record(s) for s in log_samples(location)]
    frame = pd.DataFrame.from_records(records, columns=list(_COLUMNS))
    # A sample run again into the same log (eval-retry) supersedes its earlier record.
    frame = frame.drop_duplicates(["case", "epoch"], keep="last").reset_index(drop=True)
    return _whole_annotations(location, frame).assign(eval_id=eval_id)


def samples_or_why(location: str, eval_id: str) -> pd.DataFrame | Unusable:
    """One log's samples, or why they cannot be read: a worker returns what it found, so
    that the reason, not an exception that may not pickle, crosses back."""
    try:
        return read_samples(location, eval_id)
    except READ_ERRORS as err:
        return diagnose(location, err, TASK, reading="its samples")


def usage_totals(usage: dict[str, Usage]) -> tuple[int, int, float]:
    """A run's prompt and completion tokens and its cost over every model it called, from its
    log; the cost is NaN unless the run recorded one (`inspect eval --model-cost-config`)."""
    costs = [u.total_cost for u in usage.values() if u.total_cost is not None]
    return (
        sum(u.input_tokens for u in usage.values()),
        sum(u.output_tokens for u in usage.values()),
        float(sum(costs)) if costs else math.nan,
    )
