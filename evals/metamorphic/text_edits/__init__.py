"""Reading an answer for the metamorphic suite: its sentences, its numbers, its dates, its words.

Every function here is pure and says "I cannot tell" (None, or no candidate) instead of
guessing: a sentence boundary that could be an abbreviation, a number whose kind the words
around it do not give, a bound whose direction is unclear.

- Sentences and the claim span of one (`_sentences`).
- Numbers and dates, canonical across formats, and the fetch dates an answer states
  (`_numbers`).
- The policy values a change can falsify, with the direction it must go (`_policy_values`).
- Text addressed to the judge, and content words (`_words`).
"""

from farejudge.evals.metamorphic.text_edits._characters import MONTHS
from farejudge.evals.metamorphic.text_edits._numbers import (
    Kind,
    Mention,
    StatedDate,
    arithmetic_closure,
    atoms,
    format_long_date,
    mentions,
    stated_fetch_dates,
)
from farejudge.evals.metamorphic.text_edits._policy_values import (
    Direction,
    PolicyValue,
    Unreadable,
    ValueKind,
    format_value,
    policy_values,
)
from farejudge.evals.metamorphic.text_edits._sentences import (
    Sentence,
    claim_text,
    sentence_at,
    sentences,
)
from farejudge.evals.metamorphic.text_edits._words import addressed_to_judge, content_words

__all__ = [
    "MONTHS",
    "Direction",
    "Kind",
    "Mention",
    "PolicyValue",
    "Sentence",
    "StatedDate",
    "Unreadable",
    "ValueKind",
    "addressed_to_judge",
    "arithmetic_closure",
    "atoms",
    "claim_text",
    "content_words",
    "format_long_date",
    "format_value",
    "mentions",
    "policy_values",
    "sentence_at",
    "sentences",
    "stated_fetch_dates",
]
