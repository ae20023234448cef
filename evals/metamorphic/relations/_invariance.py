"""The invariance relations, which keep the gold label: passages reordered, tags renumbered, a
distractor passage added, small talk added as earlier turns."""

import re

from farejudge.core.case_schema import Case
from farejudge.evals.metamorphic.derived_case import Relation, Skipped, build
from farejudge.evals.metamorphic.relations._case_reading import (
    Context,
    Result,
    gold_in_words,
    makes_silence_claim,
    passage_fields,
    rng_for,
    tag_list,
    turn_texts,
)
from farejudge.evals.metamorphic.text_edits import atoms

_POSITIONAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|last|top|bottom|previous|next|above|below|earlier"
    r"|later)\W+(?:\w+\W+)?(?:passage|source|excerpt|snippet)s?\b"
    r"|\b(?:passage|source|excerpt|snippet)s?\W+(?:above|below)\b",
    re.IGNORECASE,
)
_ANY_TAG = re.compile(r"\bP\d+\b")
_PASSAGE_NUMBER = re.compile(r"\bpassages?\s+\d+\b", re.IGNORECASE)
_TAG = re.compile(r"P(\d+)")


def _tag_numbers(case: Case) -> list[int] | None:
    numbers = []
    for passage in case.passages:
        match = _TAG.fullmatch(passage.tag)
        if not match:
            return None
        numbers.append(int(match.group(1)))
    return numbers


def _invariance_rationale(parent: Case, relation: Relation, change: str, why: str) -> str:
    return (
        f"Invariance ({relation}) on {parent.id}: {change} {why} So the gold label is the "
        f"parent's: {gold_in_words(parent)}. Parent's rationale: {parent.rationale}"
    )


def passage_order(case: Case, ctx: Context) -> Result:
    if len(case.passages) < 2:
        return Skipped(case.id, "passage_order", "fewer than 2 passages")
    for text in [case.answer, *turn_texts(case)]:
        if _POSITIONAL.search(text):
            return Skipped(
                case.id,
                "passage_order",
                "the answer or question refers to a passage by its position",
                _POSITIONAL.search(text).group(),  # type: ignore[union-attr]
            )
    order = list(range(len(case.passages)))
    rng_for(ctx, case, "passage_order").shuffle(order)
    if order == sorted(order):
        order.reverse()
    passages = [case.passages[i] for i in order]
    edit = f"passages: {tag_list(case.passages)} → {tag_list(passages)}"
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
    texts = [case.answer, *turn_texts(case)]
    for passage in case.passages:
        texts.extend(passage_fields(passage))
    for text in texts:
        named = _ANY_TAG.search(text) or _PASSAGE_NUMBER.search(text)
        if named:
            return Skipped(
                case.id,
                "tag_renumber",
                "a passage tag is named in the answer, question, prior turns or a passage",
                named.group(),
            )
    offset = max(numbers) + rng_for(ctx, case, "tag_renumber").randrange(4)
    passages = [
        p.model_copy(update={"tag": f"P{n + offset}"})
        for p, n in zip(case.passages, numbers, strict=True)
    ]
    edit = f"tags: {tag_list(case.passages)} → {tag_list(passages)}"
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
    if makes_silence_claim(case):
        return Skipped(
            case.id,
            relation,
            "the answer makes a silence claim, which an added passage could speak to",
        )
    numbers = _tag_numbers(case)
    if numbers is None:
        return Skipped(case.id, relation, "passage tags are not of the form P<n>")
    cited = {p.agency for p in case.passages}
    said = [case.answer, *turn_texts(case)]
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
    chosen = rng_for(ctx, case, relation).choice(candidates)
    tag = f"P{max(numbers) + 1}"
    passages = [*case.passages, chosen.as_passage(tag)]
    edit = (
        f"passages: {tag_list(case.passages)} → {tag_list(passages)} "
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
    user, assistant = rng_for(ctx, case, "small_talk_turns").choice(SMALL_TALK)
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
