"""P(ungrounded) read off a judge's logprobs: a table of the shapes providers return them in.

Each row is a reply, its tokens as the provider split them (token, logprob, alternatives),
and what `p_ungrounded` makes of them: a probability computed here from the row's numbers,
or the words of the reason there is none.
"""

import itertools
import json
import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from inspect_ai.model import (
    ModelOutput,
)

from farejudge.scorers.graded import (
    NoGrade,
    Reading,
    graded_score,
    locate_verdict,
    p_ungrounded,
    reading_of_record,
    reading_record,
)
from tests.support.graded_replies import (
    LLAMA,
    LLAMA_TOKENS,
    OPENAI,
    OPENAI_TOKENS,
    VLLM,
    VLLM_TOKENS,
    Alternatives,
    Tok,
    output_of,
    share,
    split,
    with_top,
)

# A reasoning model's tokens hold its reasoning; Inspect moved the reasoning into a part of its
# own (a well-formed <think> block), so the reply's text is the final answer alone. The draft
# verdict in the reasoning has alternatives of its own: they are not the verdict's.
THINK = '<think>\nP1 gives $1.25, not $2. Draft: {"grounded": true}\n</think>\n\n'
FINAL = '{"grounded": false, "unsupported_claims": ["$2 fare"], "reasoning": "P1: $1.25"}'
THINK_TOKENS = with_top(
    with_top(
        split(
            THINK + FINAL,
            "P1",
            "Draft",
            '{"',
            "ground",
            'ed":',
            " true",
            "}",
            "\n</think>",
            '{"grounded',
            '":',
            " false",
            ",",
        ),
        " true",
        -0.01,
        [(" true", -0.01), (" false", -4.6)],
    ),
    " false",
    -0.22,
    [(" false", -0.22), (" true", -1.61), (" f", -6.0)],
)

# vLLM or Ollama serving R1, QwQ or Qwen3: the chat template opened <think>, so the reply
# begins inside the reasoning and only its `</think>` arrives; the reply is the whole text.
LONE = 'The fare is in P1 {"grounded": false}\n</think>\n\n{"grounded": true, "reasoning": "ok"}'
LONE_TOKENS = with_top(
    split(
        LONE,
        "fare",
        '{"',
        "ground",
        'ed":',
        " false",
        "}\n",
        "</think>",
        "\n\n",
        '{"grounded":',
        " true",
        ",",
    ),
    " true",
    -0.6,
    [(" true", -0.6), (" false", -0.8)],
)

# A fenced verdict with prose around it; the prose mentions "grounded" too.
FENCED = (
    'The answer is grounded: "grounded" means supported.\n```json\n'
    '{"grounded": false, "unsupported_claims": ["a"], "reasoning": "b"}\n```\nDone.'
)
FENCED_TOKENS = with_top(
    split(FENCED, '"grounded"', " means", "```json", '{"', "grounded", '":', " false", ","),
    " false",
    -0.05,
    [(" false", -0.05), (" true", -3.0)],
)

# A tokenizer that merges the colon into the value's token: alternatives must carry it too.
MERGED = '{"grounded":false,"reasoning":"x"}'
MERGED_TOKENS = with_top(
    split(MERGED, "grounded", '":false', ',"'),
    '":false',
    -0.4,
    [('":false', -0.4), ('":true', -1.2), ('": true', -2.0), (" true", -0.9), ('"', -5.0)],
)

# The value split over tokens: the first letters decide.
SPLIT_VALUE = '{"grounded": false, "unsupported_claims": []}'
SPLIT_TOKENS = with_top(
    split(SPLIT_VALUE, "grounded", '": ', "f", "alse", ","),
    "f",
    -0.5,
    [("f", -0.5), ("t", -1.0), ("tr", -3.0), ("fa", -4.0), ("n", -6.0)],
)

# Keys in another order, "grounded" quoted inside the reasoning before the real key.
REORDERED = '{"reasoning": "not \\"grounded\\": true at all", "grounded": false}'
REORDERED_TOKENS = with_top(
    split(REORDERED, 'not \\"', 'grounded\\"', ": true", " at", '"grounded":', " false", "}"),
    " false",
    -0.3,
    [(" false", -0.3), (" true", -1.4)],
)

# OpenAI splits a character over tokens and names each part's bytes; its token strings are not
# the character's.
DASH = 'Checked P1 \u2014 it matches. {"grounded": true}'
DASH_TOKENS = with_top(
    [
        Tok("Checked P1 "),
        Tok("bytes:\\xe2\\x80", raw=b"\xe2\x80"),
        Tok("bytes:\\x94", raw=b"\x94"),
        *split(' it matches. {"grounded": true}', ' {"', "grounded", '":', " true", "}"),
    ],
    " true",
    -0.9,
    [(" true", -0.9), (" false", -0.6)],
)

# Only one side among the alternatives: the other is below all of them.
ONE_SIDED_TOKENS = with_top(
    split(LLAMA, ' "', "ground", "ed", '":', " true", ",", ' "uns'),
    " true",
    -0.01,
    [(" true", -0.01), ("true", -5.0), (' "', -7.0)],
)

READ: list[tuple[str, ModelOutput, float]] = [
    (
        "OpenAI chat, JSON mode",
        output_of(OPENAI, OPENAI_TOKENS, bytes_given=True),
        share([-0.105, -7.9, -11.2], [-2.31]),
    ),
    (
        "vLLM, pretty-printed, bytes given",
        output_of(VLLM, VLLM_TOKENS, bytes_given=True),
        share([-3.95], [-0.02, -9.1, -12.0]),
    ),
    (
        "llama-cpp-python, chosen token among its alternatives",
        output_of(LLAMA, LLAMA_TOKENS),
        share([-1.946, -4.651], [-0.309, -2.369]),
    ),
    (
        "reasoning in a part of its own, in the tokens",
        output_of(FINAL, THINK_TOKENS, reasoning=THINK),
        share([-0.22, -6.0], [-1.61]),
    ),
    (
        "template-opened think: only </think> in the reply",
        output_of(LONE, LONE_TOKENS),
        share([-0.8], [-0.6]),
    ),
    ("fenced verdict, prose around it", output_of(FENCED, FENCED_TOKENS), share([-0.05], [-3.0])),
    (
        "colon merged into the value's token",
        output_of(MERGED, MERGED_TOKENS),
        share([-0.4], [-1.2, -2.0]),
    ),
    (
        "value split over tokens",
        output_of(SPLIT_VALUE, SPLIT_TOKENS),
        share([-0.5, -4.0], [-1.0, -3.0]),
    ),
    (
        "key after a quoted key in the reasoning",
        output_of(REORDERED, REORDERED_TOKENS),
        share([-0.3], [-1.4]),
    ),
    (
        "a character split over tokens, bytes given",
        output_of(DASH, DASH_TOKENS, bytes_given=True),
        share([-0.6], [-0.9]),
    ),
    ("one side only among the alternatives", output_of(LLAMA, ONE_SIDED_TOKENS), 0.0),
]


@pytest.mark.parametrize(("name", "output", "expected"), READ, ids=[r[0] for r in READ])
def test_p_ungrounded_is_the_false_share_at_the_verdict_token(
    name: str, output: ModelOutput, expected: float
) -> None:
    got = p_ungrounded(output)
    assert isinstance(got, float), (name, got)
    assert got == pytest.approx(expected, abs=1e-12)


def _without_top(tokens: list[Tok], at: str, top: Alternatives) -> list[Tok]:
    return with_top(tokens, at, -0.309, top)


NOT_READ: list[tuple[str, ModelOutput, str]] = [
    ("no logprobs (Anthropic)", output_of(LLAMA, None), "the provider returned no logprobs"),
    ("empty logprobs", output_of(LLAMA, []), "the provider returned no logprobs"),
    (
        "no top_logprobs asked",
        output_of(LLAMA, _without_top(LLAMA_TOKENS, " true", None)),
        "the provider returned no alternatives at the verdict's token",
    ),
    (
        "top_logprobs empty",
        output_of(LLAMA, _without_top(LLAMA_TOKENS, " true", [])),
        "the provider returned no alternatives at the verdict's token",
    ),
    (
        "tokens of another text",
        output_of(LLAMA.replace("true", "false"), LLAMA_TOKENS),
        "the tokens' text does not match the reply's verdict",
    ),
    (
        "tokens missing the verdict",
        output_of(LLAMA, LLAMA_TOKENS[:3]),
        "the tokens' text does not match the reply's verdict",
    ),
    (
        "two verdict objects",
        output_of('{"grounded": true} {"grounded": false}', split('{"grounded": true} {"', "}")),
        "no single verdict object in the reply to read a probability at",
    ),
    (
        "grounded is no boolean",
        output_of('{"grounded": "yes"}', split('{"grounded": "yes"}', '"yes')),
        "no single verdict object in the reply to read a probability at",
    ),
    (
        "no probability left on either side",
        output_of(LLAMA, with_top(LLAMA_TOKENS, " true", -9999.0, [(' "', -0.01)])),
        "no probability on true or false at the verdict's token",
    ),
]


@pytest.mark.parametrize(("name", "output", "reason"), NOT_READ, ids=[r[0] for r in NOT_READ])
def test_no_probability_where_the_logprobs_cannot_say(
    name: str, output: ModelOutput, reason: str
) -> None:
    assert p_ungrounded(output) == NoGrade(reason), name


def test_the_graded_score_says_where_it_came_from() -> None:
    logprobs = graded_score("logprobs", False, 0.93)
    assert (logprobs.p_ungrounded, logprobs.source) == (0.93, "logprobs")
    assert logprobs.line == "Graded: P(ungrounded) = 0.93 from the judge's token probabilities."
    refused = graded_score("logprobs", True, NoGrade("the provider returned no logprobs"))
    assert math.isnan(refused.p_ungrounded) and refused.source == "none"
    assert refused.line == "No graded score: the provider returned no logprobs."
    assert (graded_score("epochs", False, None).p_ungrounded, "epochs") == (1.0, "epochs")
    assert graded_score("epochs", True, None).p_ungrounded == 0.0
    for mode in ("logprobs", "epochs", "off"):
        failure = graded_score(mode, None, 0.5)
        assert math.isnan(failure.p_ungrounded) and failure.source == "none"


@given(reading=st.floats(min_value=0.0, max_value=1.0) | st.builds(NoGrade, st.text(max_size=40)))
def test_a_reading_survives_the_metadata_it_is_kept_in(reading: Reading) -> None:
    # The record is what the log holds: JSON, read back as the same reading.
    record = json.loads(json.dumps(reading_record(reading)))
    assert reading_of_record(record) == reading


def test_no_record_is_no_reading() -> None:
    assert reading_of_record(None) is None


# Any verdict, any reasoning text, cut into tokens anywhere; the token the value begins in
# offered the other word with the same lead-in.
VERDICTS = st.fixed_dictionaries(
    {
        "grounded": st.booleans(),
        "unsupported_claims": st.lists(st.text(max_size=12), max_size=2),
        # A <think> tag anywhere opens reasoning, inside a string too (scorers/verdict.py).
        "reasoning": st.text(max_size=30).filter(lambda t: "think>" not in t and "<think" not in t),
    }
)


@given(
    verdict=VERDICTS,
    indent=st.sampled_from([None, 2]),
    cuts=st.sets(st.integers(min_value=1, max_value=400), max_size=40),
    chosen=st.floats(min_value=-20, max_value=0),
    other=st.floats(min_value=-20, max_value=0),
)
@example(
    verdict={"grounded": True, "unsupported_claims": [], "reasoning": ""},
    indent=None,
    cuts={12},
    chosen=0.0,
    other=-1.0,
)
def test_any_tokenisation_gives_the_share_of_its_numbers(
    verdict: dict[str, object], indent: int | None, cuts: set[int], chosen: float, other: float
) -> None:
    reply = json.dumps(verdict, indent=indent)
    at = sorted({c for c in cuts if c < len(reply)} | {0, len(reply)})
    pieces = [reply[a:b] for a, b in itertools.pairwise(at)]
    where = locate_verdict(reply)
    assert where is not None
    starts = [sum(len(p) for p in pieces[:i]) for i in range(len(pieces))]
    index = max(i for i, s in enumerate(starts) if s <= where.value)
    before = reply[starts[index] : where.value]
    word = where.word
    other_word = "true" if word == "false" else "false"
    tokens = [Tok(p) for p in pieces]
    offered = [(pieces[index], chosen), (before + other_word, other)]
    tokens[index] = Tok(pieces[index], chosen, offered)
    got = p_ungrounded(output_of(reply, tokens))
    mine, theirs = math.exp(chosen), math.exp(other)
    expected = (mine if word == "false" else theirs) / (mine + theirs)
    assert isinstance(got, float)
    assert got == pytest.approx(expected)
