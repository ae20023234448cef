"""Directional: a fetch date the answer states, shifted so that no provenance line gives it."""

import datetime

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
    addressed_to_judge,
    atoms,
    claim_text,
    sentence_at,
    stated_fetch_dates,
)

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
        case.answer, *turn_texts(case), *(f for p in case.passages for f in passage_fields(p))
    )
    rng = rng_for(ctx, case, relation)
    rng.shuffle(agreeing)
    attempts = Attempts()
    for date in agreeing:
        sentence = sentence_at(case.answer, date.start)
        if sentence is None:
            attempts.fail(0, "the sentence holding the date cannot be delimited", date.raw)
            continue
        if overlaps_claim(case, sentence):
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
        claims = ordered_claims(answer, [*case.label.unsupported_claims, claim])
        days = (new_day - date.day).days
        edit = f'answer: "{date.raw}" → "{new_raw}"'
        rationale = (
            f"Directional ({relation}) on {case.id}: the fetch date the answer states, "
            f"{date.raw}, agreed with a provenance line; it was shifted by {days:+d} days "
            f"({edit}). No provenance line gives {new_raw} (nor any other text of the case), and "
            "a stated fetch or snapshot date that no provenance line gives is unsupported (the "
            f"rule v3 exists for), so: “{claim}”. The rest keeps the parent's gold "
            f"({gold_in_words(case)}). Parent's rationale: {case.rationale}"
        )
        return build(
            case,
            relation,
            edit=edit,
            rationale=rationale,
            rules=directional_rules(case, ["provenance-invented-date", "freshness-disclosure"]),
            answer=answer,
            label={"grounded": False, "unsupported_claims": claims},
        )
    reason, detail = attempts.furthest()
    return Skipped(case.id, relation, reason, detail)
