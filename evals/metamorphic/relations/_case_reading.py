"""What every relation reads of a case: the context it runs in, its random stream, the texts a
fact may come from, its gold claims, and how a derived case's rule list and rationale begin."""

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from farejudge.core.case_schema import Case, Passage
from farejudge.evals.metamorphic.derived_case import DerivedCase, Skipped
from farejudge.evals.metamorphic.policy_corpus import Section
from farejudge.evals.metamorphic.text_edits import Sentence

Result = DerivedCase | Skipped


@dataclass(frozen=True)
class Context:
    seed: int
    corpus: tuple[Section, ...]
    ungrounded_parents: bool = True
    """Let the directional relations edit a claim-free sentence of an ungrounded parent too
    (the derived label keeps the parent's claims and adds the new one). Off: grounded parents
    only, the issue's strict reading."""


@dataclass
class Attempts:
    """Why each candidate edit of a case failed, by how far it got (its stage): the skip says
    why the candidate that got furthest failed, the first of them on a tie."""

    _furthest: tuple[int, str, str] | None = None

    def fail(self, stage: int, reason: str, detail: str) -> None:
        if self._furthest is None or stage > self._furthest[0]:
            self._furthest = (stage, reason, detail)

    def furthest(self) -> tuple[str, str]:
        if self._furthest is None:
            raise ValueError("no candidate edit was tried")
        return self._furthest[1], self._furthest[2]


def rng_for(ctx: Context, case: Case, stream: str) -> random.Random:
    """The case's own random stream for `stream` (a relation's name, mostly)."""
    return random.Random(f"{ctx.seed}|{case.id}|{stream}")


# Rules that describe the case's setting rather than the claim an edit touches: they still
# hold after a directional edit of a grounded case.
_CONTEXT_RULES = (
    "conv-context",
    "rider-circumstance-not-claim",
    "hedge-not-claim",
    "redirect-not-claim",
    "injection-in-answer",
    "injection-in-passage",
    "date-in-title",
    "freshness-disclosure",
)

_SILENCE = re.compile(
    r"\b(?:do(?:es)?n[\u2019']t|do(?:es)? not|never)\s+(?:\w+\s+)?"
    r"(?:say|mention|specify|list|address|state|describe|cover)\b",
    re.IGNORECASE,
)


def turn_texts(case: Case) -> list[str]:
    """What the rider said: the question and the prior turns (context, never evidence)."""
    return [case.question, *(t.content for t in case.prior_turns)]


def passage_fields(passage: Passage) -> list[str]:
    """Everything the judge sees of a passage (v3): header, provenance line and text."""
    return [
        passage.agency,
        passage.title,
        passage.section,
        passage.url,
        passage.fetched,
        passage.text,
    ]


def gold_in_words(case: Case) -> str:
    """The case's gold label, as a derived case's rationale states it."""
    if case.label.grounded:
        return "grounded, no unsupported claim"
    claims = "; ".join(f"“{c}”" for c in case.label.unsupported_claims)
    return f"ungrounded, with the unsupported claim(s) {claims}"


def makes_silence_claim(case: Case) -> bool:
    return bool({"silence-true", "silence-false"} & set(case.rules) or _SILENCE.search(case.answer))


def _claim_spans(case: Case) -> list[tuple[int, int]]:
    """Where each gold claim sits in the answer (every occurrence)."""
    spans: list[tuple[int, int]] = []
    for claim in case.label.unsupported_claims:
        start = case.answer.find(claim)
        while start != -1:
            spans.append((start, start + len(claim)))
            start = case.answer.find(claim, start + 1)
    return spans


def overlaps_claim(case: Case, sentence: Sentence) -> bool:
    return any(s < sentence.end and sentence.start < e for s, e in _claim_spans(case))


def ordered_claims(answer: str, claims: list[str]) -> list[str]:
    unique = list(dict.fromkeys(claims))
    return sorted(unique, key=lambda c: (answer.find(c), c))


def kept_note(parent: Case) -> str:
    """For an ungrounded parent: its own claims stay in the derived label."""
    if parent.label.grounded:
        return ""
    return (
        f" The parent's own claims stay unsupported and stay in the label: {gold_in_words(parent)}."
    )


def directional_rules(parent: Case, new: list[str]) -> list[str]:
    """A directional case's rules: a grounded parent's rules of its setting, or an ungrounded
    parent's own, then `new`."""
    if parent.label.grounded:
        return [r for r in parent.rules if r in _CONTEXT_RULES] + new
    return [*parent.rules, *new]


def tag_list(passages: Sequence[Passage]) -> str:
    """The passages' tags, as an edit shows them ("P1,P2")."""
    return ",".join(p.tag for p in passages)


def shortened(text: str, limit: int = 60) -> str:
    """The text on one line, cut to `limit` characters, as an edit or a skip quotes it."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
