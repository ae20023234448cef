"""Claim-level comparison of a judge's unsupported claims with the gold ones.

Gold claims are the shortest clause stating the unbacked fact; judges tend to quote a
longer span around it. A judge claim and a gold claim match when, after folding case,
white space and surrounding punctuation, one contains the other. Matching is one to one.
"""

import re
from dataclasses import dataclass

from farejudge.core.escaping import unescape
from farejudge.core.spans import Range, locate

_SPACE = re.compile(r"\s+")
_EDGE = " \t\n\"'.,;:!?()[]\u201c\u201d\u2018\u2019"  # typographic quotes too


def normalize(text: str) -> str:
    """The text as claims are compared: case, spacing and edge punctuation folded."""
    return _SPACE.sub(" ", text).strip(_EDGE).casefold()


def as_answered(claim: str, where: Range | None, answer: str) -> str:
    """The judge's claim in the answer's own characters, `where` it was located: the judge read
    the answer escaped, so `&lt;` in its quote is the answer's `<` (and `&amp;lt;` its literal
    `&lt;`). A claim that is no quotation is compared as the judge meant it, unescaped."""
    return answer[where[0] : where[1]] if where else unescape(claim)


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
    """How much of one claim the other holds; `judge` is in the answer's characters, as gold is."""
    a, b = normalize(judge), normalize(gold)
    if not a or not b:
        return 0
    return min(len(a), len(b)) if (a in b or b in a) else 0


def compare_claims(judge: list[str], gold: list[str], answer: str) -> ClaimComparison:
    # Verbatim but for case, spacing and edge punctuation, as the judge read it or as it is.
    located = [locate(j, answer) for j in judge]
    answered = [as_answered(j, where, answer) for j, where in zip(judge, located, strict=True)]
    pairs = sorted(
        ((_overlap(j, g), ji, gi) for ji, j in enumerate(answered) for gi, g in enumerate(gold)),
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
        not_in_answer=[j for j, where in zip(judge, located, strict=True) if where is None],
    )
