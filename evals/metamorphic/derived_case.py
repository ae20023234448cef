"""The shape of a metamorphic case: a gold `Case` plus where it came from and what changed.

A derived case is built only through `build`, which checks it exactly as the loader checks a
shipped record (`Case.model_validate`, then `case_problems`) and refuses it otherwise.
"""

from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import Field, ValidationError

from farejudge.core.case_schema import Case, NonEmpty, case_problems

Relation = Literal[
    "passage_order",
    "tag_renumber",
    "distractor_passage",
    "small_talk_turns",
    "value_changed",
    "supporting_passage_removed",
    "fact_moved_to_turns",
    "fetch_date_shifted",
]
RELATIONS: tuple[Relation, ...] = get_args(Relation)
INVARIANCE: tuple[Relation, ...] = RELATIONS[:4]
"""Relations that leave the gold label as it was."""
DIRECTIONAL: tuple[Relation, ...] = RELATIONS[4:]
"""Relations that make the answer ungrounded, with a claim known by construction."""

_DERIVED_FIELDS = ("derived_from", "relation", "edit")


class DerivedCase(Case):
    """A case derived from a gold case by one metamorphic relation, its gold known by
    construction. Strict and closed like `Case`: the loader's rules hold for it unchanged."""

    derived_from: NonEmpty = Field(description="the id of the gold case it was derived from")
    relation: Relation = Field(description="the metamorphic relation applied")
    edit: NonEmpty = Field(description='what changed, "before → after"')

    def as_case(self) -> Case:
        """The plain case, as `-T dataset=` reads it (the derivation fields dropped)."""
        return Case.model_validate(self.model_dump(exclude=set(_DERIVED_FIELDS)))


@dataclass(frozen=True)
class Skipped:
    """A relation that could not be applied safely to a case, and why."""

    parent: str
    relation: Relation
    reason: str
    """A short, general reason (the suite counts these)."""
    detail: str = ""
    """What in this case made it so."""


def derived_id(parent_id: str, relation: Relation) -> str:
    return f"{parent_id}~{relation}"


def build(
    parent: Case,
    relation: Relation,
    *,
    edit: str,
    rationale: str,
    rules: list[str],
    **changes: Any,
) -> "DerivedCase | Skipped":
    """The parent with `changes` (field → new value, as plain data) applied, validated by the
    project's own case rules; Skipped if it breaks any of them (never expected)."""
    record: dict[str, Any] = parent.model_dump()
    record.update(changes)
    record.update(
        id=derived_id(parent.id, relation),
        rationale=rationale,
        rules=list(dict.fromkeys(rules)),
        derived_from=parent.id,
        relation=relation,
        edit=edit,
    )
    try:
        case = Case.model_validate({k: v for k, v in record.items() if k not in _DERIVED_FIELDS})
        derived = DerivedCase.model_validate(record)
    except ValidationError as err:
        return Skipped(parent.id, relation, "the derived case fails the case schema", str(err))
    problems = case_problems(case)
    if problems:
        detail = "; ".join(f"{field}: {problem}" for field, problem in problems)
        return Skipped(parent.id, relation, "the derived case fails the case rules", detail)
    return derived
