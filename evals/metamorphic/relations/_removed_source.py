"""Directional: the only passage that states a fact the answer uses, removed, or moved into an
earlier user turn (prior turns never ground a claim)."""

import re
from dataclasses import dataclass

from farejudge.core.case_schema import Case
from farejudge.evals.metamorphic.derived_case import Relation, Skipped, build
from farejudge.evals.metamorphic.relations._case_reading import (
    Attempts,
    Context,
    Result,
    directional_rules,
    kept_note,
    makes_silence_claim,
    ordered_claims,
    overlaps_claim,
    passage_fields,
    rng_for,
    shortened,
    tag_list,
    turn_texts,
)
from farejudge.evals.metamorphic.text_edits import (
    Mention,
    addressed_to_judge,
    arithmetic_closure,
    atoms,
    claim_text,
    content_words,
    mentions,
    sentence_at,
    sentences,
)


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
    if not case.label.grounded and makes_silence_claim(case):
        return (
            "the ungrounded answer makes a silence claim, which a removed passage could make true",
            "",
        )
    if len(case.passages) < 2:
        return "fewer than 2 passages (removing one would leave none)", ""
    rider = atoms(*turn_texts(case))
    said = turn_texts(case)
    all_sentences = sentences(case.answer)
    order = list(range(len(case.passages)))
    rng_for(ctx, case, "supporting_passage").shuffle(order)
    attempts = Attempts()
    for index in order:
        passage = case.passages[index]
        rest = [p for i, p in enumerate(case.passages) if i != index]
        rest_atoms = atoms(*(f for p in rest for f in passage_fields(p)))
        removed_only = atoms(*passage_fields(passage)) - rest_atoms - rider
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
        if any(overlaps_claim(case, s) for s in fact_sentences):
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
                leaning.append(f"“{shortened(text, 40)}”: {', '.join(shared[:3])}")
        if leaning:
            attempts.fail(
                3, "another sentence of the answer also draws on that passage", leaning[0]
            )
            continue
        new_claims = [claim_text(case.answer, s) for s in fact_sentences]
        claims = tuple(ordered_claims(case.answer, [*case.label.unsupported_claims, *new_claims]))
        facts_raw = tuple(dict.fromkeys(m.raw for m in facts))
        return SoleSource(index, facts_raw, tuple(ordered_claims(case.answer, new_claims)), claims)
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
    edit = (
        f"passages: {tag_list(case.passages)} → {tag_list(rest)} ({removed.tag} removed: {facts})"
    )
    claims = "; ".join(f"“{c}”" for c in source.new_claims)
    rationale = (
        f"Directional ({relation}) on {case.id}: {removed.tag} ({removed.agency} | "
        f"{removed.title} | {removed.section}) was removed. It was the only passage that stated "
        f"{facts}, which no other passage, header, provenance line, question or prior turn "
        f"gives, so the sentence(s) using it are now unsupported: {claims}. No other sentence "
        f"of the answer draws on the removed passage.{kept_note(case)} Parent's rationale: "
        f"{case.rationale}"
    )
    return build(
        case,
        relation,
        edit=edit,
        rationale=rationale,
        rules=directional_rules(case, _fact_rules(source, case)),
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
        f"passages: {tag_list(case.passages)} → {tag_list(rest)}; prior_turns: +user "
        f'"{shortened(said, 50)}" ({moved.tag}\'s text moved into an earlier turn)'
    )
    claims = "; ".join(f"“{c}”" for c in source.new_claims)
    rationale = (
        f"Directional ({relation}) on {case.id}: the text of {moved.tag}, the only passage "
        f"that stated {facts}, now appears only in an earlier user turn. Prior turns are "
        "context, never evidence: a policy fact stated only in an earlier turn is unsupported "
        f"when the answer repeats it (conv-prior-turn-fact, the rule v2 exists for). So: "
        f"{claims}. No other sentence of the answer draws on the moved passage.{kept_note(case)} "
        f"Parent's rationale: {case.rationale}"
    )
    return build(
        case,
        relation,
        edit=edit,
        rationale=rationale,
        rules=directional_rules(case, ["conv-prior-turn-fact", *_fact_rules(source, case)]),
        passages=[p.model_dump() for p in rest],
        prior_turns=turns,
        label={"grounded": False, "unsupported_claims": list(source.claims)},
    )
