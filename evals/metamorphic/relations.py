"""The eight metamorphic relations: each takes a gold case and returns the derived case, its
gold label known by construction, or `Skipped` with the reason it could not be applied safely.

Invariance (gold unchanged): passage_order, tag_renumber, distractor_passage, small_talk_turns.
Directional (the answer becomes ungrounded, with a known claim): value_changed,
supporting_passage_removed, fact_moved_to_turns, fetch_date_shifted.

A claim is always the sentence that holds the edit, cut as the labeling guide cuts a claim
(no sentence-final punctuation, no leading "Yes —"), and a verbatim part of the new answer.
Randomness comes only from `random.Random(f"{seed}|{case id}|{relation}")`, which is the same
on every machine and Python run.
"""

import datetime
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from farejudge.core.case_schema import Case, Passage
from farejudge.evals.metamorphic.derived_case import DerivedCase, Relation, Skipped, build
from farejudge.evals.metamorphic.policy_corpus import Section
from farejudge.evals.metamorphic.text_edits import (
    Mention,
    PolicyValue,
    Sentence,
    addressed_to_judge,
    arithmetic_closure,
    atoms,
    claim_text,
    content_words,
    format_value,
    mentions,
    policy_values,
    sentence_at,
    sentences,
    stated_fetch_dates,
)

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
class _Attempts:
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


def _rng(ctx: Context, case: Case, stream: str) -> random.Random:
    return random.Random(f"{ctx.seed}|{case.id}|{stream}")


# ---------------------------------------------------------------------------------------------
# Shared readings of a case

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
_POSITIONAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|last|top|bottom|previous|next|above|below|earlier"
    r"|later)\W+(?:\w+\W+)?(?:passage|source|excerpt|snippet)s?\b"
    r"|\b(?:passage|source|excerpt|snippet)s?\W+(?:above|below)\b",
    re.IGNORECASE,
)
_ANY_TAG = re.compile(r"\bP\d+\b")
_PASSAGE_NUMBER = re.compile(r"\bpassages?\s+\d+\b", re.IGNORECASE)
_TAG = re.compile(r"P(\d+)")


def _turn_texts(case: Case) -> list[str]:
    return [case.question, *(t.content for t in case.prior_turns)]


def _passage_fields(passage: Passage) -> list[str]:
    """Everything the judge sees of a passage (v3): header, provenance line and text."""
    return [
        passage.agency,
        passage.title,
        passage.section,
        passage.url,
        passage.fetched,
        passage.text,
    ]


def _gold(case: Case) -> str:
    if case.label.grounded:
        return "grounded, no unsupported claim"
    claims = "; ".join(f"“{c}”" for c in case.label.unsupported_claims)
    return f"ungrounded, with the unsupported claim(s) {claims}"


def _makes_silence_claim(case: Case) -> bool:
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


def _overlaps_claim(case: Case, sentence: Sentence) -> bool:
    return any(s < sentence.end and sentence.start < e for s, e in _claim_spans(case))


def _ordered_claims(answer: str, claims: list[str]) -> list[str]:
    unique = list(dict.fromkeys(claims))
    return sorted(unique, key=lambda c: (answer.find(c), c))


def _kept(parent: Case) -> str:
    """For an ungrounded parent: its own claims stay in the derived label."""
    if parent.label.grounded:
        return ""
    return f" The parent's own claims stay unsupported and stay in the label: {_gold(parent)}."


def _directional_rules(parent: Case, new: list[str]) -> list[str]:
    if parent.label.grounded:
        return [r for r in parent.rules if r in _CONTEXT_RULES] + new
    return [*parent.rules, *new]


def _tag_numbers(case: Case) -> list[int] | None:
    numbers = []
    for passage in case.passages:
        match = _TAG.fullmatch(passage.tag)
        if not match:
            return None
        numbers.append(int(match.group(1)))
    return numbers


def _tags(passages: Sequence[Passage]) -> str:
    return ",".join(p.tag for p in passages)


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _invariance_rationale(parent: Case, relation: Relation, change: str, why: str) -> str:
    return (
        f"Invariance ({relation}) on {parent.id}: {change} {why} So the gold label is the "
        f"parent's: {_gold(parent)}. Parent's rationale: {parent.rationale}"
    )


# ---------------------------------------------------------------------------------------------
# Invariance


def passage_order(case: Case, ctx: Context) -> Result:
    if len(case.passages) < 2:
        return Skipped(case.id, "passage_order", "fewer than 2 passages")
    for text in [case.answer, *_turn_texts(case)]:
        if _POSITIONAL.search(text):
            return Skipped(
                case.id,
                "passage_order",
                "the answer or question refers to a passage by its position",
                _POSITIONAL.search(text).group(),  # type: ignore[union-attr]
            )
    order = list(range(len(case.passages)))
    _rng(ctx, case, "passage_order").shuffle(order)
    if order == sorted(order):
        order.reverse()
    passages = [case.passages[i] for i in order]
    edit = f"passages: {_tags(case.passages)} → {_tags(passages)}"
    rationale = _invariance_rationale(
        case,
        "passage_order",
        f"the same passages, each with its own tag, shown in another order ({edit}).",
        "Where a passage sits carries no evidence, and the answer names no passage by its "
        "position.",
    )
    return build(
        case,
        "passage_order",
        edit=edit,
        rationale=rationale,
        rules=list(case.rules),
        passages=[p.model_dump() for p in passages],
    )


def tag_renumber(case: Case, ctx: Context) -> Result:
    numbers = _tag_numbers(case)
    if numbers is None:
        return Skipped(case.id, "tag_renumber", "passage tags are not of the form P<n>")
    texts = [case.answer, *_turn_texts(case)]
    for passage in case.passages:
        texts.extend(_passage_fields(passage))
    for text in texts:
        named = _ANY_TAG.search(text) or _PASSAGE_NUMBER.search(text)
        if named:
            return Skipped(
                case.id,
                "tag_renumber",
                "a passage tag is named in the answer, question, prior turns or a passage",
                named.group(),
            )
    offset = max(numbers) + _rng(ctx, case, "tag_renumber").randrange(4)
    passages = [
        p.model_copy(update={"tag": f"P{n + offset}"})
        for p, n in zip(case.passages, numbers, strict=True)
    ]
    edit = f"tags: {_tags(case.passages)} → {_tags(passages)}"
    rationale = _invariance_rationale(
        case,
        "tag_renumber",
        f"every passage tag renamed consistently ({edit}).",
        "A tag is only a label, and no text of the case names one.",
    )
    return build(
        case,
        "tag_renumber",
        edit=edit,
        rationale=rationale,
        rules=list(case.rules),
        passages=[p.model_dump() for p in passages],
    )


def _names_agency(agency: str, texts: list[str]) -> bool:
    words = agency.split()
    forms = [agency, words[0]]
    if len(words) >= 3:
        forms.append("".join(w[0] for w in words if w[0].isupper()))
    pattern = re.compile("|".join(rf"\b{re.escape(f)}\b" for f in forms))
    return any(pattern.search(t) for t in texts)


def distractor_passage(case: Case, ctx: Context) -> Result:
    relation: Relation = "distractor_passage"
    if _makes_silence_claim(case):
        return Skipped(
            case.id,
            relation,
            "the answer makes a silence claim, which an added passage could speak to",
        )
    numbers = _tag_numbers(case)
    if numbers is None:
        return Skipped(case.id, relation, "passage tags are not of the form P<n>")
    cited = {p.agency for p in case.passages}
    said = [case.answer, *_turn_texts(case)]
    answer_atoms = atoms(case.answer)
    candidates = [
        s
        for s in ctx.corpus
        if s.agency not in cited
        and not s.addressed_to_judge
        and not _names_agency(s.agency, said)
        and not (atoms(s.text, s.title, s.section, s.url, s.fetched) & answer_atoms)
    ]
    if not candidates:
        return Skipped(
            case.id,
            relation,
            "no other agency's corpus section is free of the answer's numbers, prices, ages "
            "and dates",
        )
    chosen = _rng(ctx, case, relation).choice(candidates)
    tag = f"P{max(numbers) + 1}"
    passages = [*case.passages, chosen.as_passage(tag)]
    edit = (
        f"passages: {_tags(case.passages)} → {_tags(passages)} "
        f"(+ {tag}: {chosen.agency} | {chosen.title} | {chosen.section})"
    )
    rationale = _invariance_rationale(
        case,
        relation,
        f"{tag} added, the section “{chosen.section}” of {chosen.agency}'s {chosen.title} "
        "taken verbatim from the corpus: an agency no passage of the case cites and no text "
        "of the case names, sharing no number, price, age or date with the answer.",
        "A passage about another agency neither backs nor contradicts a claim about this one "
        "(a fact moved across agencies is unsupported), and the answer makes no silence claim "
        "it could speak to.",
    )
    return build(
        case,
        relation,
        edit=edit,
        rationale=rationale,
        rules=list(case.rules),
        passages=[p.model_dump() for p in passages],
    )


SMALL_TALK: tuple[tuple[str, str], ...] = (
    ("Hi there!", "Hello! Happy to help with your transit questions."),
    ("Good morning.", "Good morning! What can I help you with today?"),
    ("Hello, I hope you're having a nice day.", "Thank you, you too! How can I help?"),
    ("Hey, thanks for being here.", "Of course! Ask me whatever you like."),
    ("Hi! I have a question coming up.", "Sure, go ahead whenever you're ready."),
    (
        "Hello. It's raining here today.",
        "Sorry to hear about the rain! What would you like to know?",
    ),
)
"""Greetings and pleasantries: no number, no fare fact, no circumstance of the rider."""


def small_talk_turns(case: Case, ctx: Context) -> Result:
    user, assistant = _rng(ctx, case, "small_talk_turns").choice(SMALL_TALK)
    turns = [
        {"role": "user", "content": user},
        {"role": "assistant", "content": assistant},
        *(t.model_dump() for t in case.prior_turns),
    ]
    edit = (
        f"prior_turns: {len(case.prior_turns)} → {len(turns)} "
        f'(+ user: "{user}", assistant: "{assistant}", first)'
    )
    rationale = _invariance_rationale(
        case,
        "small_talk_turns",
        "two earlier turns of small talk added before the conversation (a greeting and a "
        "pleasantry, with no number, no fare fact and nothing about the rider).",
        "Prior turns are context, never evidence (the judge sees them from v2 on), and these "
        "add no context either.",
    )
    return build(
        case,
        "small_talk_turns",
        edit=edit,
        rationale=rationale,
        rules=list(case.rules),
        prior_turns=turns,
    )


# ---------------------------------------------------------------------------------------------
# Directional: a changed value

_VALUE_RULES = {"price": "price-altered", "age": "age-altered", "period": "date-altered"}
_ANAPHORA = re.compile(r"^(?:That|This|Which|It)(?:['\u2019]s|\s+is|\s+comes|\s+works|\s+means)\b")


def _steps(value: PolicyValue) -> list[Decimal]:
    if value.unit == "cents":
        return [Decimal(s) for s in (5, 10, 15, 20, 25)]
    if value.kind == "price" and "." in value.mention.raw:
        return [Decimal(s) for s in ("0.10", "0.15", "0.25", "0.35", "0.40", "0.60", "0.75")]
    v = value.value
    if value.kind == "age":
        return [Decimal(s) for s in (1, 2, 3, 4, 5)]
    if v <= 10:
        return [Decimal(s) for s in (1, 2, 3, 4, 5)]
    if v <= 30:
        return [Decimal(s) for s in (2, 3, 5, 7, 10)]
    return [Decimal(s) for s in (5, 10, 15, 20, 30)]


def _atom_of(value: PolicyValue, new: Decimal) -> str:
    scaled = new / 100 if value.unit == "cents" else new
    return format(scaled.normalize(), "f")


def _replacement(value: PolicyValue, forbidden: frozenset[str], rng: random.Random) -> str | None:
    signs = {"up": (1,), "down": (-1,), "any": (1, -1)}[value.direction]
    candidates = [value.value + sign * step for step in _steps(value) for sign in signs]
    upper = Decimal(99) if value.unit == "cents" or value.kind == "age" else Decimal(10**6)
    lower = Decimal(0)
    if value.mention.kind == "word":
        # Written as a word: stay within the words, and plural.
        lower, upper = Decimal(1), Decimal(20)
    candidates = [c for c in candidates if lower < c <= upper]
    rng.shuffle(candidates)
    for new in candidates:
        if _atom_of(value, new) not in forbidden:
            return format_value(value, new)
    return None


_DIRECTION_WORDS = {
    "up": "raised: it is an upper bound or a window, so a higher value is false, not merely weaker",
    "down": "lowered: it is a lower bound, a threshold or a guarantee, so a lower value is false, "
    "not merely weaker",
    "any": "changed: it states an exact value, so any other value is false",
}


def value_changed(case: Case, ctx: Context) -> Result:
    relation: Relation = "value_changed"
    if not case.label.grounded and not ctx.ungrounded_parents:
        return Skipped(case.id, relation, "the parent is not grounded")
    values, _ = policy_values(case.answer)
    if not values:
        return Skipped(case.id, relation, "no price, age or count (in digits or a count word)")
    rider = atoms(*_turn_texts(case))
    passage_atoms = atoms(*(f for p in case.passages for f in _passage_fields(p)))
    forbidden = (
        passage_atoms
        | rider
        | atoms(case.answer)
        | arithmetic_closure(atoms(*(p.text for p in case.passages)))
    )
    rng = _rng(ctx, case, relation)
    order = list(values)
    rng.shuffle(order)
    attempts = _Attempts()
    for value in order:
        m = value.mention
        if m.atom in rider:
            attempts.fail(
                0,
                "the value is also in the question or prior turns (a rider's circumstance)",
                m.raw,
            )
            continue
        sentence = sentence_at(case.answer, m.start)
        if sentence is None:
            attempts.fail(1, "the sentence holding the value cannot be delimited", m.raw)
            continue
        if _overlaps_claim(case, sentence):
            attempts.fail(2, "the sentence holding the value also holds a gold claim", m.raw)
            continue
        if addressed_to_judge(case.answer[sentence.start : sentence.end]):
            attempts.fail(2, "the value sits in text addressed to the judge", m.raw)
            continue
        following = [s for s in sentences(case.answer) if s.start >= sentence.end]
        if following and _ANAPHORA.match(case.answer[following[0].start : following[0].end]):
            attempts.fail(3, "the next sentence refers back to the value", m.raw)
            continue
        new_raw = _replacement(value, forbidden, rng)
        if new_raw is None:
            attempts.fail(
                4, "no replacement value is absent from the passages, question and turns", m.raw
            )
            continue
        answer = case.answer[: m.start] + new_raw + case.answer[m.end :]
        new_sentence = sentence_at(answer, m.start)
        if new_sentence is None:
            attempts.fail(5, "the edited sentence cannot be delimited", new_raw)
            continue
        claim = claim_text(answer, new_sentence)
        if new_raw not in claim:
            attempts.fail(5, "the claim would not hold the changed value", new_raw)
            continue
        claims = _ordered_claims(answer, [*case.label.unsupported_claims, claim])
        edit = f'answer: "{m.raw}" → "{new_raw}"'
        rationale = (
            f"Directional (value_changed) on {case.id}: the answer's {value.kind} {m.raw} was "
            f"{_DIRECTION_WORDS[value.direction]} ({edit}). No passage text, header or "
            f"provenance line gives {new_raw}, nor the question or prior turns, nor exact "
            "arithmetic on two passage numbers, so the sentence that states it is unsupported: "
            f"“{claim}”. The rest of the answer is unchanged and keeps the parent's gold "
            f"({_gold(case)}). Parent's rationale: {case.rationale}"
        )
        rule = _VALUE_RULES.get(value.kind)
        return build(
            case,
            relation,
            edit=edit,
            rationale=rationale,
            rules=_directional_rules(case, [rule] if rule else []),
            answer=answer,
            label={"grounded": False, "unsupported_claims": claims},
        )
    reason, detail = attempts.furthest()
    return Skipped(case.id, relation, reason, detail)


# ---------------------------------------------------------------------------------------------
# Directional: the only passage that states a fact, removed (or moved into a prior turn)


@dataclass(frozen=True)
class SoleSource:
    """A passage that alone states numbers the answer uses, and the sentences that use them."""

    index: int
    facts: tuple[str, ...]
    """The numbers as the answer writes them."""
    new_claims: tuple[str, ...]
    """The sentences that use those numbers, as claims."""
    claims: tuple[str, ...]
    """The derived label's claims: the parent's and the new ones, in answer order."""


def _pronoun_one(text: str, mention: Mention) -> bool:
    """ "doesn't need one": the word "one" counts as a number only before a unit."""
    return (
        mention.kind == "word"
        and mention.atom == "1"
        and not re.match(
            r"\s+(?:year|month|week|day|hour|minute|ride|trip|proof|card|pass|transfer|child)\b",
            text[mention.end :],
        )
    )


def _price_atoms(*texts: str) -> frozenset[str]:
    return frozenset(m.atom for t in texts for m in mentions(t) if m.kind == "price")


def sole_source(case: Case, ctx: Context) -> SoleSource | tuple[str, str]:
    """The passage whose removal leaves exactly the sentences holding its facts unsupported,
    chosen with the seed; or (reason, detail) when no passage qualifies."""
    if not case.label.grounded and not ctx.ungrounded_parents:
        return "the parent is not grounded", ""
    if not case.label.grounded and _makes_silence_claim(case):
        return (
            "the ungrounded answer makes a silence claim, which a removed passage could make true",
            "",
        )
    if len(case.passages) < 2:
        return "fewer than 2 passages (removing one would leave none)", ""
    rider = atoms(*_turn_texts(case))
    said = _turn_texts(case)
    all_sentences = sentences(case.answer)
    order = list(range(len(case.passages)))
    _rng(ctx, case, "supporting_passage").shuffle(order)
    attempts = _Attempts()
    for index in order:
        passage = case.passages[index]
        rest = [p for i, p in enumerate(case.passages) if i != index]
        rest_atoms = atoms(*(f for p in rest for f in _passage_fields(p)))
        removed_only = atoms(*_passage_fields(passage)) - rest_atoms - rider
        fact_atoms = removed_only & atoms(passage.text)
        arithmetic = arithmetic_closure(_price_atoms(*(p.text for p in rest)))
        facts = [
            m
            for m in mentions(case.answer)
            if m.atom in fact_atoms
            and not (m.kind == "price" and m.atom in arithmetic)
            and not _pronoun_one(case.answer, m)
        ]
        if not facts:
            attempts.fail(
                0, "no number the answer uses is stated by one passage alone", passage.tag
            )
            continue
        tag = re.compile(rf"(?<!\w){re.escape(passage.tag)}(?!\w)")
        if any(tag.search(t) for t in [case.answer, *said]):
            attempts.fail(1, "the answer or question names the passage's tag", passage.tag)
            continue
        holding = [sentence_at(case.answer, m.start) for m in facts]
        if any(s is None for s in holding):
            attempts.fail(2, "a sentence holding the fact cannot be delimited", passage.tag)
            continue
        fact_sentences = {s for s in holding if s is not None}
        if any(_overlaps_claim(case, s) for s in fact_sentences):
            attempts.fail(2, "a sentence holding the fact also holds a gold claim", passage.tag)
            continue
        removed_words = content_words(passage.text, passage.title, passage.section) - (
            content_words(*(p.text for p in rest))
        )
        leaning = []
        for sentence in all_sentences:
            if sentence in fact_sentences:
                continue
            text = case.answer[sentence.start : sentence.end]
            shared = sorted(content_words(text) & removed_words) + sorted(
                atoms(text) & removed_only
            )
            if shared:
                leaning.append(f"“{_short(text, 40)}”: {', '.join(shared[:3])}")
        if leaning:
            attempts.fail(
                3, "another sentence of the answer also draws on that passage", leaning[0]
            )
            continue
        new_claims = [claim_text(case.answer, s) for s in fact_sentences]
        claims = tuple(_ordered_claims(case.answer, [*case.label.unsupported_claims, *new_claims]))
        facts_raw = tuple(dict.fromkeys(m.raw for m in facts))
        return SoleSource(index, facts_raw, tuple(_ordered_claims(case.answer, new_claims)), claims)
    reason, detail = attempts.furthest()
    return reason, detail


def _fact_rules(source: SoleSource, case: Case) -> list[str]:
    kinds = {m.kind for m in mentions(case.answer) if m.raw in source.facts}
    return ["price-invented"] if "price" in kinds else []


def supporting_passage_removed(case: Case, ctx: Context) -> Result:
    relation: Relation = "supporting_passage_removed"
    source = sole_source(case, ctx)
    if isinstance(source, tuple):
        return Skipped(case.id, relation, *source)
    removed = case.passages[source.index]
    rest = [p for i, p in enumerate(case.passages) if i != source.index]
    facts = ", ".join(source.facts)
    edit = f"passages: {_tags(case.passages)} → {_tags(rest)} ({removed.tag} removed: {facts})"
    claims = "; ".join(f"“{c}”" for c in source.new_claims)
    rationale = (
        f"Directional ({relation}) on {case.id}: {removed.tag} ({removed.agency} | "
        f"{removed.title} | {removed.section}) was removed. It was the only passage that stated "
        f"{facts}, which no other passage, header, provenance line, question or prior turn "
        f"gives, so the sentence(s) using it are now unsupported: {claims}. No other sentence "
        f"of the answer draws on the removed passage.{_kept(case)} Parent's rationale: "
        f"{case.rationale}"
    )
    return build(
        case,
        relation,
        edit=edit,
        rationale=rationale,
        rules=_directional_rules(case, _fact_rules(source, case)),
        passages=[p.model_dump() for p in rest],
        label={"grounded": False, "unsupported_claims": list(source.claims)},
    )


MOVED_ACK = "Thanks. Let me check the policy for you."


def fact_moved_to_turns(case: Case, ctx: Context) -> Result:
    relation: Relation = "fact_moved_to_turns"
    source = sole_source(case, ctx)
    if isinstance(source, tuple):
        return Skipped(case.id, relation, *source)
    moved = case.passages[source.index]
    if addressed_to_judge(moved.text):
        return Skipped(case.id, relation, "the passage holds text addressed to the judge")
    rest = [p for i, p in enumerate(case.passages) if i != source.index]
    said = f'I read this on {moved.agency}\'s website: "{moved.text}"'
    turns = [
        {"role": "user", "content": said},
        {"role": "assistant", "content": MOVED_ACK},
        *(t.model_dump() for t in case.prior_turns),
    ]
    facts = ", ".join(source.facts)
    edit = (
        f"passages: {_tags(case.passages)} → {_tags(rest)}; prior_turns: +user "
        f'"{_short(said, 50)}" ({moved.tag}\'s text moved into an earlier turn)'
    )
    claims = "; ".join(f"“{c}”" for c in source.new_claims)
    rationale = (
        f"Directional ({relation}) on {case.id}: the text of {moved.tag}, the only passage "
        f"that stated {facts}, now appears only in an earlier user turn. Prior turns are "
        "context, never evidence: a policy fact stated only in an earlier turn is unsupported "
        f"when the answer repeats it (conv-prior-turn-fact, the rule v2 exists for). So: "
        f"{claims}. No other sentence of the answer draws on the moved passage.{_kept(case)} "
        f"Parent's rationale: {case.rationale}"
    )
    return build(
        case,
        relation,
        edit=edit,
        rationale=rationale,
        rules=_directional_rules(case, ["conv-prior-turn-fact", *_fact_rules(source, case)]),
        passages=[p.model_dump() for p in rest],
        prior_turns=turns,
        label={"grounded": False, "unsupported_claims": list(source.claims)},
    )


# ---------------------------------------------------------------------------------------------
# Directional: a stated fetch date shifted off every provenance line

SHIFTS = (7, -7, 14, -14, 10, -10)


def fetch_date_shifted(case: Case, ctx: Context) -> Result:
    relation: Relation = "fetch_date_shifted"
    stated = stated_fetch_dates(case.answer)
    if not stated:
        return Skipped(case.id, relation, "the answer states no fetch date")
    provenance = {p.fetched for p in case.passages}
    agreeing = [d for d in stated if d.day.isoformat() in provenance]
    if not agreeing:
        return Skipped(
            case.id,
            relation,
            "no fetch date the answer states agrees with a provenance line",
            ", ".join(d.raw for d in stated),
        )
    forbidden = atoms(
        case.answer, *_turn_texts(case), *(f for p in case.passages for f in _passage_fields(p))
    )
    rng = _rng(ctx, case, relation)
    rng.shuffle(agreeing)
    attempts = _Attempts()
    for date in agreeing:
        sentence = sentence_at(case.answer, date.start)
        if sentence is None:
            attempts.fail(0, "the sentence holding the date cannot be delimited", date.raw)
            continue
        if _overlaps_claim(case, sentence):
            attempts.fail(1, "the sentence holding the date also holds a gold claim", date.raw)
            continue
        if addressed_to_judge(case.answer[sentence.start : sentence.end]):
            attempts.fail(1, "the date sits in text addressed to the judge", date.raw)
            continue
        shifts = list(SHIFTS)
        rng.shuffle(shifts)
        new_day: datetime.date | None = None
        for shift in shifts:
            day = date.day + datetime.timedelta(days=shift)
            if (
                f"date:{day.isoformat()}" not in forbidden
                and f"monthday:{day.month:02d}-{day.day:02d}" not in forbidden
            ):
                new_day = day
                break
        if new_day is None:
            attempts.fail(2, "every shifted date already appears in the case", date.raw)
            continue
        new_raw = date.formatted(new_day)
        answer = case.answer[: date.start] + new_raw + case.answer[date.end :]
        new_sentence = sentence_at(answer, date.start)
        if new_sentence is None:
            attempts.fail(3, "the edited sentence cannot be delimited", new_raw)
            continue
        claim = claim_text(answer, new_sentence)
        if new_raw not in claim:
            attempts.fail(3, "the claim would not hold the shifted date", new_raw)
            continue
        claims = _ordered_claims(answer, [*case.label.unsupported_claims, claim])
        days = (new_day - date.day).days
        edit = f'answer: "{date.raw}" → "{new_raw}"'
        rationale = (
            f"Directional ({relation}) on {case.id}: the fetch date the answer states, "
            f"{date.raw}, agreed with a provenance line; it was shifted by {days:+d} days "
            f"({edit}). No provenance line gives {new_raw} (nor any other text of the case), and "
            "a stated fetch or snapshot date that no provenance line gives is unsupported (the "
            f"rule v3 exists for), so: “{claim}”. The rest keeps the parent's gold "
            f"({_gold(case)}). Parent's rationale: {case.rationale}"
        )
        return build(
            case,
            relation,
            edit=edit,
            rationale=rationale,
            rules=_directional_rules(case, ["provenance-invented-date", "freshness-disclosure"]),
            answer=answer,
            label={"grounded": False, "unsupported_claims": claims},
        )
    reason, detail = attempts.furthest()
    return Skipped(case.id, relation, reason, detail)


APPLY: dict[Relation, Callable[[Case, Context], Result]] = {
    "passage_order": passage_order,
    "tag_renumber": tag_renumber,
    "distractor_passage": distractor_passage,
    "small_talk_turns": small_talk_turns,
    "value_changed": value_changed,
    "supporting_passage_removed": supporting_passage_removed,
    "fact_moved_to_turns": fact_moved_to_turns,
    "fetch_date_shifted": fetch_date_shifted,
}
"""Each relation's function, in the order of `RELATIONS`."""
