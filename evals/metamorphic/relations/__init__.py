"""The eight metamorphic relations: each takes a gold case and returns the derived case, its
gold label known by construction, or `Skipped` with the reason it could not be applied safely.

Invariance (gold unchanged, `_invariance`): passage_order, tag_renumber, distractor_passage,
small_talk_turns. Directional (the answer becomes ungrounded, with a known claim), by family: a
changed value, value_changed (`_changed_value`); the only passage stating a fact removed,
supporting_passage_removed and fact_moved_to_turns (`_removed_source`); a stated fetch date
shifted, fetch_date_shifted (`_shifted_date`). What they all read of a case is in
`_case_reading`.

A claim is always the sentence that holds the edit, cut as the labeling guide cuts a claim
(no sentence-final punctuation, no leading "Yes —"), and a verbatim part of the new answer.
Randomness comes only from `random.Random(f"{seed}|{case id}|{relation}")`, which is the same
on every machine and Python run.
"""

from collections.abc import Callable

from farejudge.core.case_schema import Case
from farejudge.evals.metamorphic.derived_case import Relation
from farejudge.evals.metamorphic.relations._case_reading import Context, Result
from farejudge.evals.metamorphic.relations._changed_value import value_changed
from farejudge.evals.metamorphic.relations._invariance import (
    SMALL_TALK,
    distractor_passage,
    passage_order,
    small_talk_turns,
    tag_renumber,
)
from farejudge.evals.metamorphic.relations._removed_source import (
    MOVED_ACK,
    SoleSource,
    fact_moved_to_turns,
    sole_source,
    supporting_passage_removed,
)
from farejudge.evals.metamorphic.relations._shifted_date import SHIFTS, fetch_date_shifted

__all__ = [
    "APPLY",
    "MOVED_ACK",
    "SHIFTS",
    "SMALL_TALK",
    "Context",
    "Result",
    "SoleSource",
    "distractor_passage",
    "fact_moved_to_turns",
    "fetch_date_shifted",
    "passage_order",
    "small_talk_turns",
    "sole_source",
    "supporting_passage_removed",
    "tag_renumber",
    "value_changed",
]

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
