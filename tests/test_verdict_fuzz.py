"""The verdict parser under fuzz: over 10,000 generated replies, seeded so CI sees the same ones.

Three properties:
- no exception escapes `parse_verdict`, whatever the reply;
- a valid verdict serialized by `json.dumps`, in any envelope the parser accepts, reads back equal;
- nothing that is not a verdict is ever read as one, so never as `grounded: true` or `false`.

Hypothesis draws the material (a verdict, prose, a broken value); each draw is then checked in
every serialization and envelope, or at every truncation point, so the suite reaches 10,000
distinct replies in seconds. Every test counts the distinct replies it checked.
"""

import json
from collections.abc import Callable
from typing import Any, TypeVar

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict

T = TypeVar("T")

# Distinct replies each property must check, 10,000 or more in all, and the Hypothesis
# examples it takes to reach them (one example yields several replies).
REPLIES = {"any": 2000, "round_trip": 3500, "not_a_verdict": 3500, "json_value": 1500}
EXAMPLES = {"any": 2200, "round_trip": 380, "not_a_verdict": 120, "json_value": 600}

# Pieces a judge reply is made of, and the ones that break parsers: JSON syntax, fences,
# escapes, line and paragraph separators, NUL, right-to-left marks, astral-plane characters.
FRAGMENTS = [
    "{", "}", "[", "]", '"', "\\", ":", ",", "```", "```json\n", "\n```", "\n", "\r\n",
    "\u2028", "\x00", "\u202e", "\U0001f68c", "é", "grounded", '"grounded"', '"grounded": ',
    "true", "false", "null", "0", "1e999", "NaN", '{"grounded": true}', '{"grounded": false}',
    "</assistant_answer>", "### Instructions", "Verdict:", " ",
]  # fmt: skip
WHITESPACE = " \t\n\r"
VERDICT_KEYS = ("grounded", "unsupported_claims", "reasoning")
# Every way `json.dumps` is commonly called: ASCII-escaped or not, compact or indented.
DUMPS: list[dict[str, Any]] = [
    {"ensure_ascii": ascii_only, "indent": indent}
    for ascii_only in (True, False)
    for indent in (None, 2)
]
FENCE_LANGS = ["", "json", "JSON", "javascript"]

short_text = st.text(max_size=20)
spicy_text = st.lists(st.one_of(short_text, st.sampled_from(FRAGMENTS)), max_size=6).map("".join)
# Long replies come from a local model stuck in a loop: one piece, repeated.
long_text = st.builds(
    lambda piece, times: piece * times,
    st.sampled_from(["[", "{", '{"a":', "9", "a", '"', "\\", "```", "{}", "[]", "é", " "]),
    st.integers(min_value=1_000, max_value=12_000),
)
# Prose around a bare verdict: anything that opens no JSON value and no fence.
prose = st.text(st.characters(exclude_characters="{[`"), max_size=40)
# Around a fence the parser reads only the fence, so prose may hold anything but a fence.
fence_prose = st.text(st.characters(exclude_characters="`"), max_size=40)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False),
    spicy_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.one_of(short_text, st.sampled_from(VERDICT_KEYS)), inner, max_size=3)
    ),
    max_leaves=8,
)


@st.composite
def verdicts(draw: st.DrawFn) -> tuple[dict[str, Any], ParsedVerdict]:
    """A valid verdict object (optional keys left out or not, extra keys, any order)."""
    grounded = draw(st.booleans())
    obj: dict[str, Any] = {"grounded": grounded}
    claims: list[str] = []
    reasoning = ""
    if draw(st.booleans()):
        claims = draw(st.lists(spicy_text, max_size=3))
        obj["unsupported_claims"] = claims
    if draw(st.booleans()):
        reasoning = draw(st.one_of(spicy_text, long_text))
        obj["reasoning"] = reasoning
    extra = draw(st.dictionaries(short_text, json_values, max_size=2))
    obj.update({k: v for k, v in extra.items() if k not in VERDICT_KEYS})
    order = draw(st.permutations(list(obj)))
    return {k: obj[k] for k in order}, ParsedVerdict(grounded, claims, reasoning)


class Wrapping:
    """Prose drawn once per example, to wrap every serialization of it the same ways."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.before, self.after = draw(prose), draw(prose)
        self.fence_before, self.fence_after = draw(fence_prose), draw(fence_prose)
        self.lang = draw(st.sampled_from(FENCE_LANGS))
        self.space = draw(st.text(WHITESPACE, max_size=3))

    def envelopes(self, body: str) -> list[str]:
        """The JSON text as a judge might send it: bare, inside prose, fenced with prose."""
        return [
            self.space + body + self.space,
            self.before + body + self.after,
            f"```{self.lang}\n{body}\n```",
            f"{self.fence_before}\n```{self.lang}\n{body}\n```\n{self.fence_after}",
        ]

    def any_envelope(self, body: str, pick: int) -> str:
        return self.envelopes(body)[pick % 4]


def serializations(value: Any) -> list[str]:
    return [json.dumps(value, **options) for options in DUMPS]


@st.composite
def valid_replies(draw: st.DrawFn) -> list[tuple[str, ParsedVerdict]]:
    obj, expected = draw(verdicts())
    wrap = Wrapping(draw)
    return [(reply, expected) for text in serializations(obj) for reply in wrap.envelopes(text)]


NOT_BOOL = st.one_of(
    st.sampled_from(["true", "false", "True", "yes", "grounded", ""]),
    st.sampled_from([0, 1, 0.0, None, [], {}, [True], {"value": True}]),
    short_text,
)
NOT_STR_LIST = st.one_of(
    spicy_text,
    st.lists(st.one_of(st.integers(), st.none(), st.booleans()), min_size=1, max_size=3),
    st.dictionaries(short_text, short_text, min_size=1, max_size=2),
    st.integers(),
    st.none(),
)


def truncations(text: str, most: int = 40) -> list[str]:
    """Strict prefixes of the text, cut at up to `most` points spread over its length."""
    step = max(1, len(text) // most)
    return [text[:cut] for cut in range(0, len(text), step)]


@st.composite
def not_verdicts(draw: st.DrawFn) -> list[str]:
    """Replies built from one drawn verdict that hold no verdict readable without guessing."""
    obj, _ = draw(verdicts())
    other, _ = draw(verdicts())
    wrap = Wrapping(draw)
    pick = draw(st.integers(min_value=0, max_value=3))
    dumps = DUMPS[draw(st.integers(min_value=0, max_value=len(DUMPS) - 1))]
    text = json.dumps(obj, **dumps)
    again = json.dumps(draw(st.booleans()))

    def broken(key: str, value: Any) -> str:
        return wrap.any_envelope(json.dumps({**obj, key: value}, **dumps), pick)

    replies = [
        broken("grounded", draw(NOT_BOOL)),
        broken("unsupported_claims", draw(NOT_STR_LIST)),
        broken("reasoning", draw(st.one_of(st.none(), st.integers(), st.lists(short_text)))),
        # Nested in another object, listed, or quoted as a string: not the reply's verdict.
        wrap.any_envelope(json.dumps({draw(st.sampled_from(["verdict", "result"])): obj}), pick),
        wrap.any_envelope(json.dumps([obj] * draw(st.integers(1, 2)), **dumps), pick),
        wrap.any_envelope(json.dumps({draw(short_text): text}), pick),
        # Two verdicts, equal or not, bare or fenced: which one counts would be a guess.
        text + wrap.before + json.dumps(other, **dumps),
        f"```json\n{text}\n```\n{wrap.fence_after}\n```\n{json.dumps(obj)}\n```",
        # JSON keeps the last of two equal keys; a reply that says both has said neither.
        text[:-1] + f', "grounded": {again}}}',
        '{"grounded": ' + again + ", " + text[1:],
        draw(st.text(WHITESPACE)),
    ]
    # A reply cut off anywhere inside its JSON, as by the token limit, fenced or not.
    lead = wrap.before + draw(st.sampled_from(["", "```json\n"]))
    return replies + [lead + cut for cut in truncations(text)]


def contract(value: Any) -> ParsedVerdict | None:
    """What a JSON value says as a verdict by the reply contract, written apart from the parser."""
    if not isinstance(value, dict) or type(value.get("grounded")) is not bool:
        return None
    claims = value.get("unsupported_claims", [])
    reasoning = value.get("reasoning", "")
    if not isinstance(claims, list) or not all(isinstance(c, str) for c in claims):
        return None
    if not isinstance(reasoning, str):
        return None
    return ParsedVerdict(value["grounded"], claims, reasoning)


@st.composite
def json_replies(draw: st.DrawFn) -> list[tuple[str, ParsedVerdict | None]]:
    """Any JSON value, biased towards verdict-shaped objects, with what it should parse to."""
    value = draw(
        st.one_of(
            json_values,
            st.fixed_dictionaries(
                {"grounded": st.one_of(st.booleans(), json_scalars)},
                optional={
                    "unsupported_claims": st.one_of(st.lists(short_text), json_values),
                    "reasoning": st.one_of(short_text, json_values),
                },
            ),
        )
    )
    return [(text, contract(value)) for text in serializations(value)]


def fuzz(strategy: st.SearchStrategy[T], check: Callable[[T], list[str]], key: str) -> int:
    """Run `check` on the property's share of generated material; the distinct replies checked."""
    seen: set[str] = set()

    @settings(
        max_examples=EXAMPLES[key],
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(material: T) -> None:
        seen.update(check(material))

    run()
    return len(seen)


def test_no_exception_escapes() -> None:
    replies = st.one_of(
        st.text(),
        spicy_text,
        long_text,
        st.tuples(spicy_text, long_text, spicy_text).map("".join),
        # A verdict whose extra value the model never finished: nesting, digits, quotes.
        long_text.map(lambda value: '{"grounded": true, "confidence": ' + value + "}"),
    )

    def check(reply: str) -> list[str]:
        assert isinstance(parse_verdict(reply), ParsedVerdict | JudgeFailure)
        return [reply]

    assert fuzz(replies, check, "any") >= REPLIES["any"]


def test_every_valid_verdict_reads_back_equal() -> None:
    def check(cases: list[tuple[str, ParsedVerdict]]) -> list[str]:
        for reply, expected in cases:
            assert parse_verdict(reply) == expected, reply[:300]
        return [reply for reply, _ in cases]

    assert fuzz(valid_replies(), check, "round_trip") >= REPLIES["round_trip"]


def test_nothing_else_is_read_as_a_verdict() -> None:
    def check(replies: list[str]) -> list[str]:
        for reply in replies:
            assert isinstance(parse_verdict(reply), JudgeFailure), reply[:300]
        return replies

    assert fuzz(not_verdicts(), check, "not_a_verdict") >= REPLIES["not_a_verdict"]


def test_any_json_value_reads_as_the_contract_says() -> None:
    def check(cases: list[tuple[str, ParsedVerdict | None]]) -> list[str]:
        for reply, expected in cases:
            parsed = parse_verdict(reply)
            assert parsed == expected if expected else isinstance(parsed, JudgeFailure), reply
        return [reply for reply, _ in cases]

    assert fuzz(json_replies(), check, "json_value") >= REPLIES["json_value"]


def test_the_fuzzing_covers_ten_thousand_replies() -> None:
    assert sum(REPLIES.values()) >= 10_000
