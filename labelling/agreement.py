"""How far two sets of labels agree on the same cases: verdicts (Cohen's kappa) and spans.

A set of labels is an annotator's labels file, or the gold set read as labels. Cases are
paired by id; a label given to other content than the case now has (its content hash
differs) is compared with nothing: stale where the case changed since, else damaged or
unexplained (`label_match`). Spans are compared by character overlap
(RAGTruth), B's spans against A's: precision is the share of B's characters inside A's
spans, recall the share of A's inside B's.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from farejudge.core.case_schema import Case
from farejudge.core.drafts import content_hash
from farejudge.core.spans import Range, characters, locate, span_overlap
from farejudge.labelling.label_match import Unmatched, unmatched
from farejudge.labelling.records import Label, Labelled, Span
from farejudge.scorers.confusion import Confusion, cells

GOLD = "gold"


def gold_label(case: Case) -> Label:
    """A gold case's verdict as a label, its claims located in the answer."""
    spans = []
    for claim in case.label.unsupported_claims:
        start, end = locate(claim, case.answer, escaped=False) or (0, 0)  # verbatim (schema)
        spans.append(Span(start=start, end=end, text=case.answer[start:end]))
    return Label(
        case_id=case.id,
        content_sha256=content_hash(case),
        annotator=GOLD,
        grounded=case.label.grounded,
        spans=spans,
        reason=case.rationale,
        rules=list(case.rules),
        labelled_at=None,
    )


def ranges(label: Label) -> list[Range]:
    return [(s.start, s.end) for s in label.spans]


@dataclass(frozen=True)
class Pair:
    case: Labelled
    a: Label
    b: Label

    @property
    def verdicts_agree(self) -> bool:
        return self.a.grounded == self.b.grounded

    @property
    def spans_agree(self) -> bool:
        return characters(ranges(self.a)) == characters(ranges(self.b))

    @property
    def agreed(self) -> bool:
        """Same verdict and the same characters marked unsupported: ready to become gold."""
        return self.verdicts_agree and self.spans_agree

    @property
    def rules(self) -> list[str]:
        return sorted(set(self.a.rules) | set(self.b.rules))


@dataclass(frozen=True)
class Agreement:
    a: str
    b: str
    pairs: list[Pair]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    """Cases that changed since a side labelled them: relabel them."""
    unmatched: list[tuple[str, Unmatched]] = field(default_factory=list)
    """Each side's labels that match no case for another reason (damaged, or it cannot be
    told), with the side's name: their cases are not compared."""

    @property
    def verdicts(self) -> Confusion:
        """A's verdicts as the rows, B's as the columns, "ungrounded" positive."""
        totals = [0.0, 0.0, 0.0, 0.0]
        for p in self.pairs:
            added = cells(1.0, float(not p.a.grounded), float(not p.b.grounded))
            totals = [total + part for total, part in zip(totals, added, strict=True)]
        tp, fn, fp, tn = totals
        return Confusion(tp=tp, fn=fn, fp=fp, tn=tn)

    @property
    def spans(self) -> Confusion:
        """Characters: tp in both A's and B's spans, fn in A's only, fp in B's only."""
        tp = fn = fp = 0
        for p in self.pairs:
            o = span_overlap(ranges(p.b), ranges(p.a))
            tp, fn, fp = tp + o.overlap, fn + o.gold - o.overlap, fp + o.predicted - o.overlap
        return Confusion(tp=tp, fn=fn, fp=fp)

    @property
    def disagreements(self) -> list[Pair]:
        return [p for p in self.pairs if not p.agreed]


def compare(
    cases: Sequence[Labelled], a: list[Label], b: list[Label], a_name: str, b_name: str
) -> Agreement:
    """Pair the latest label of each side per case, in the cases' order."""
    latest_a = {label.case_id: label for label in a}
    latest_b = {label.case_id: label for label in b}
    # Positions stand in for line numbers: only their order counts here.
    found = [
        (name, each)
        for name, labels in ((a_name, a), (b_name, b))
        for each in unmatched(cases, list(enumerate(labels, start=1)))
    ]
    mismatched = {each.label.case_id for _, each in found}
    changed = {each.label.case_id for _, each in found if each.kind == "changed"}
    pairs: list[Pair] = []
    only_a: list[str] = []
    only_b: list[str] = []
    stale: list[str] = []
    for case in cases:
        la, lb = latest_a.get(case.id), latest_b.get(case.id)
        if case.id in mismatched:
            if case.id in changed:
                stale.append(case.id)
        elif la is not None and lb is not None:
            pairs.append(Pair(case, la, lb))
        elif la is not None:
            only_a.append(case.id)
        elif lb is not None:
            only_b.append(case.id)
    others = [(name, each) for name, each in found if each.kind != "changed"]
    return Agreement(a_name, b_name, pairs, only_a, only_b, stale, others)


def passes(agreement: Agreement, min_kappa: float) -> bool:
    """Kappa at least the threshold; undefined kappa (one class only) passes only when every
    verdict agrees."""
    if not agreement.pairs:
        return False
    verdicts = agreement.verdicts
    if math.isnan(verdicts.kappa):
        return verdicts.accuracy == 1
    return verdicts.kappa >= min_kappa
