"""Run-level metrics over the verdict scorer's `Score.value` dictionaries.

Accuracy and the judge-failure rate count every case; a judge failure is never an
agreement, so it counts against accuracy and is shown on its own. The confusion-table
metrics (balanced accuracy, precision, recall, F1, kappa) need a verdict, so they are
computed over the cases the judge answered. Claim recall counts failed cases' gold
claims as missed, and span recall their gold characters.
"""

from collections import defaultdict
from collections.abc import Callable
from typing import TypedDict, cast

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric
from numpy.typing import NDArray

from farejudge.scorers.confusion import Confusion, cells, overlap_f1, ratio


class Counts(TypedDict):
    """What the verdict scorer's value holds for these metrics, one case-epoch's worth."""

    agree: int
    judge_failure: int
    gold_ungrounded: int
    judge_ungrounded: float
    """NaN for a judge failure: no verdict is neither grounded nor ungrounded."""
    claims_gold: int
    claims_judge: int
    claims_matched: int
    claims_not_in_answer: int
    span_judge_chars: int
    span_gold_chars: int
    span_overlap_chars: int


class _Columns:
    """One list of scores' values, each column of them extracted once.

    Inspect computes a scorer's metrics one after another on the same list of scores, and
    its running metrics do so again every refresh over all the scores so far; without this
    each of the dozen metrics walked every score once per column it reads.
    """

    def __init__(self, scores: list[SampleScore]) -> None:
        self.scores = scores
        self.size = len(scores)
        self.last = scores[-1] if scores else None
        self.values = [
            cast(dict[str, float], s.score.value) for s in scores if isinstance(s.score.value, dict)
        ]
        self._extracted: dict[str, NDArray[np.float64]] = {}

    def holds(self, scores: list[SampleScore]) -> bool:
        # The very list (held here, so its identity cannot pass to another), not grown since.
        return (
            scores is self.scores
            and len(scores) == self.size
            and (not scores or scores[-1] is self.last)
        )

    def __len__(self) -> int:
        return len(self.values)

    def column(self, key: str) -> NDArray[np.float64]:
        extracted = self._extracted.get(key)
        if extracted is None:
            extracted = np.fromiter((v[key] for v in self.values), np.float64, len(self.values))
            self._extracted[key] = extracted
        return extracted

    def total(self, key: str) -> float:
        # Whole counts (a share of epochs at most): the sum is exact in any order.
        return float(self.column(key).sum())


_latest: _Columns | None = None


def _columns(scores: list[SampleScore]) -> _Columns:
    global _latest
    if _latest is None or not _latest.holds(scores):
        _latest = _Columns(scores)
    return _latest


def confusion(scores: list[SampleScore]) -> Confusion:
    columns = _columns(scores)
    answered = 1.0 - columns.column("judge_failure")
    # A judge failure has no verdict (NaN) and adds to no cell.
    kept = answered > 0
    added = cells(
        answered[kept],
        columns.column("gold_ungrounded")[kept],
        columns.column("judge_ungrounded")[kept],
    )
    tp, fn, fp, tn = (float(part.sum()) for part in added)
    return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)


def _mean(key: str) -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        columns = _columns(scores)
        return ratio(columns.total(key), len(columns))

    return compute


def _from_confusion(stat: Callable[[Confusion], float]) -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        return stat(confusion(scores))

    return compute


@metric
def verdict_accuracy() -> Metric:
    """Share of cases where the judge's `grounded` equals gold (a failure is not agreement)."""
    return _mean("agree")


@metric
def judge_failure_rate() -> Metric:
    """Share of cases whose reply held no readable verdict."""
    return _mean("judge_failure")


@metric
def flagged_rate() -> Metric:
    """Share of the answered cases the judge calls ungrounded: its own rate, biased by its
    errors (the production audit's estimate corrects it with labels)."""

    def compute(scores: list[SampleScore]) -> float:
        columns = _columns(scores)
        answered = columns.column("judge_failure") == 0
        return ratio(float(columns.column("judge_ungrounded")[answered].sum()), answered.sum())

    return compute


@metric
def balanced_accuracy() -> Metric:
    return _from_confusion(lambda c: c.balanced_accuracy)


@metric
def precision() -> Metric:
    """Of the cases the judge called ungrounded, the share gold calls ungrounded."""
    return _from_confusion(lambda c: c.precision)


@metric
def recall() -> Metric:
    """Of the cases gold calls ungrounded, the share the judge caught."""
    return _from_confusion(lambda c: c.recall)


@metric
def f1() -> Metric:
    return _from_confusion(lambda c: c.f1)


@metric
def cohen_kappa() -> Metric:
    return _from_confusion(lambda c: c.kappa)


def _sum_ratio(numerator: str, denominator: str) -> Metric:
    def compute(scores: list[SampleScore]) -> float:
        columns = _columns(scores)
        return ratio(columns.total(numerator), columns.total(denominator))

    return compute


@metric
def claim_precision() -> Metric:
    """Of the claims the judge flagged, the share that match a gold claim."""
    return _sum_ratio("claims_matched", "claims_judge")


@metric
def claim_recall() -> Metric:
    """Of the gold claims, the share the judge flagged."""
    return _sum_ratio("claims_matched", "claims_gold")


@metric
def span_precision() -> Metric:
    """Of the answer characters the judge quoted as unsupported, the share in a gold span."""
    return _sum_ratio("span_overlap_chars", "span_judge_chars")


@metric
def span_recall() -> Metric:
    """Of the answer characters in gold spans, the share the judge quoted."""
    return _sum_ratio("span_overlap_chars", "span_gold_chars")


@metric
def span_f1() -> Metric:
    """The harmonic mean of span precision and span recall."""

    def compute(scores: list[SampleScore]) -> float:
        columns = _columns(scores)
        return overlap_f1(
            columns.total("span_overlap_chars"),
            columns.total("span_judge_chars"),
            columns.total("span_gold_chars"),
        )

    return compute


@metric
def consistency_failure_rate() -> Metric:
    """CheckList's failure rate: of the derived cases whose gold case the judge got right, the
    share it got wrong. NaN where the run holds no derived case (the gold suite).

    Over several epochs a gold case is right when every epoch of it is, and each epoch of a
    derived case counts once.
    """

    def compute(scores: list[SampleScore]) -> float:
        agree: dict[str, list[float]] = defaultdict(list)
        parent_of: dict[str, str] = {}
        for s in scores:
            case_id = str(s.sample_id)
            agree[case_id].append(cast(dict[str, float], s.score.value)["agree"])
            parent = (s.sample_metadata or {}).get("derived_from")
            if parent is not None:
                parent_of[case_id] = str(parent)
        right = {
            case_id for case_id, a in agree.items() if case_id not in parent_of and min(a) == 1
        }
        kept = [
            a for case_id, parent in parent_of.items() if parent in right for a in agree[case_id]
        ]
        return ratio(sum(1 - a for a in kept), len(kept))

    return compute
