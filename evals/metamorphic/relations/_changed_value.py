"""Directional: a price, age or count in the answer changed to a value no passage gives."""

import random
import re
from decimal import Decimal

from farejudge.core.case_schema import Case
from farejudge.evals.metamorphic.derived_case import Relation, Skipped, build
from farejudge.evals.metamorphic.relations._case_reading import (
    Attempts,
    Context,
    Result,
    directional_rules,
    gold_in_words,
    ordered_claims,
    overlaps_claim,
    passage_fields,
    rng_for,
    turn_texts,
)
from farejudge.evals.metamorphic.text_edits import (
    PolicyValue,
    addressed_to_judge,
    arithmetic_closure,
    atoms,
    claim_text,
    format_value,
    policy_values,
    sentence_at,
    sentences,
)

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
    rider = atoms(*turn_texts(case))
    passage_atoms = atoms(*(f for p in case.passages for f in passage_fields(p)))
    forbidden = (
        passage_atoms
        | rider
        | atoms(case.answer)
        | arithmetic_closure(atoms(*(p.text for p in case.passages)))
    )
    rng = rng_for(ctx, case, relation)
    order = list(values)
    rng.shuffle(order)
    attempts = Attempts()
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
        if overlaps_claim(case, sentence):
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
        claims = ordered_claims(answer, [*case.label.unsupported_claims, claim])
        edit = f'answer: "{m.raw}" → "{new_raw}"'
        rationale = (
            f"Directional (value_changed) on {case.id}: the answer's {value.kind} {m.raw} was "
            f"{_DIRECTION_WORDS[value.direction]} ({edit}). No passage text, header or "
            f"provenance line gives {new_raw}, nor the question or prior turns, nor exact "
            "arithmetic on two passage numbers, so the sentence that states it is unsupported: "
            f"“{claim}”. The rest of the answer is unchanged and keeps the parent's gold "
            f"({gold_in_words(case)}). Parent's rationale: {case.rationale}"
        )
        rule = _VALUE_RULES.get(value.kind)
        return build(
            case,
            relation,
            edit=edit,
            rationale=rationale,
            rules=directional_rules(case, [rule] if rule else []),
            answer=answer,
            label={"grounded": False, "unsupported_claims": claims},
        )
    reason, detail = attempts.furthest()
    return Skipped(case.id, relation, reason, detail)
