"""Claim-level comparison of a judge's unsupported claims with the gold ones.

Gold claims are the shortest clause stating the unbacked fact; judges tend to quote a
longer span around it. A judge claim and a gold claim match when, after folding case,
white space and surrounding punctuation, one contains the other. Matching is one to one.
"""

import re
from dataclasses import dataclass

from farejudge.core.escaping import unescape

_SPACE = re.compile(r"\s+")
_EDGE = " \t\n\"'.,;:!?()[]\u201c\u201d\u2018\u2019"  # typographic quotes too


def normalize(claim: str) -> str:
    return _SPACE.sub(" ", unescape(claim)).strip(_EDGE).casefold()


def in_answer(claim: str, answer: str) -> bool:
    """Whether the judge quoted the answer: verbatim but for case, spacing and edge punctuation."""
    needle = normalize(claim)
    return bool(needle) and needle in normalize(answer)


@dataclass(frozen=True)
class ClaimComparison:
    matched: list[tuple[str, str]]
    """(judge claim, gold claim) pairs."""
    missed: list[str]
    """Gold claims no judge claim matches."""
    extra: list[str]
    """Judge claims that match no gold claim."""
    not_in_answer: list[str]
    """Judge claims that are not a quotation of the answer at all."""


def _overlap(judge: str, gold: str) -> int:
    a, b = normalize(judge), normalize(gold)
    if not a or not b:
        return 0
    return min(len(a), len(b)) if (a in b or b in a) else 0


def compare_claims(judge: list[str], gold: list[str], answer: str) -> ClaimComparison:
    pairs = sorted(
        ((_overlap(j, g), ji, gi) for ji, j in enumerate(judge) for gi, g in enumerate(gold)),
        reverse=True,
    )
    used_j: set[int] = set()
    used_g: set[int] = set()
    matched: list[tuple[str, str]] = []
    for score, ji, gi in pairs:
        if score == 0 or ji in used_j or gi in used_g:
            continue
        used_j.add(ji)
        used_g.add(gi)
        matched.append((judge[ji], gold[gi]))
    return ClaimComparison(
        matched=matched,
        missed=[g for gi, g in enumerate(gold) if gi not in used_g],
        extra=[j for ji, j in enumerate(judge) if ji not in used_j],
        not_in_answer=[j for j in judge if not in_answer(j, answer)],
    )
