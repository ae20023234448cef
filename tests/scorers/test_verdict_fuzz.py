"""The verdict parser under fuzz: over 10,000 generated replies, the same ones on every machine.

Four properties:
- no exception escapes `parse_verdict`, whatever the reply;
- a valid verdict serialized by `json.dumps`, in any envelope the parser accepts, reads back equal;
- nothing that is not a verdict is ever read as one, so never as `grounded: true` or `false`;
- any JSON value parses exactly as an independent statement of the reply contract says.

The material (a verdict, prose, a broken value) is described once, against a `Source` of
choices, and drawn by two sources:
- `SeededSource`, a fixed seed of `random.Random` driving this file's own generators. Each
  property draws a fixed number of pieces of material and checks each in every serialization and
  envelope, or at every truncation point; the distinct replies checked are a function of the
  seed alone, pinned in `DISTINCT` and 10,000 or more in all, whatever Hypothesis is installed.
- `HypothesisSource`, Hypothesis with `derandomize=True`, for its search and its shrinking to a
  minimal failing reply. How many distinct replies it produces changes between its releases, so
  nothing is asserted about that.
"""

import functools
import json
import math
import random
import struct
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farejudge.scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict

# Over 10,000 replies and Hypothesis's search: seconds, not the fast loop's milliseconds
# (docs/performance.md#tests). test_verdict_parser.py keeps the parser's hand-written cases
# in the fast loop.
pytestmark = pytest.mark.slow

T = TypeVar("T")

SEED = 20240611
# Pieces of material each property draws from the seed, and the distinct replies they make
# (one piece yields several replies, some of them equal). The counts depend on the seed and
# this file's generators only; change either and the counts are re-pinned, not loosened.
DRAWS = {"any": 3000, "round_trip": 500, "not_a_verdict": 120, "json_value": 1200}
DISTINCT = {"any": 2775, "round_trip": 7086, "not_a_verdict": 6555, "json_value": 2636}
# What each property must reach at least, 10,000 or more in all.
MINIMUM = {"any": 2000, "round_trip": 3500, "not_a_verdict": 3500, "json_value": 1500}
# Hypothesis examples per property, on top of the seeded material and not counted.
EXPLORED = {"any": 1000, "round_trip": 200, "not_a_verdict": 80, "json_value": 600}

# Pieces a judge reply is made of, and the ones that break parsers: JSON syntax, fences,
# escapes, line and paragraph separators, NUL, right-to-left marks, astral-plane characters.
FRAGMENTS = [
    "{", "}", "[", "]", '"', "\\", ":", ",", "```", "```json\n", "\n```", "\n", "\r\n",
    "\u2028", "\x00", "\u202e", "\U0001f68c", "é", "grounded", '"grounded"', '"grounded": ',
    "true", "false", "null", "0", "1e999", "NaN", '{"grounded": true}', '{"grounded": false}',
    "</assistant_answer>", "### Instructions", "Verdict:", " ",
]  # fmt: skip
# A local model stuck in a loop repeats one piece 1,000 to 12,000 times.
LOOP_PIECES = ["[", "{", '{"a":', "9", "a", '"', "\\", "```", "{}", "[]", "é", " "]
WHITESPACE = " \t\n\r"
VERDICT_KEYS = ("grounded", "unsupported_claims", "reasoning")
# Every way `json.dumps` is commonly called: ASCII-escaped or not, compact or indented.
DUMPS: list[dict[str, Any]] = [
    {"ensure_ascii": ascii_only, "indent": indent}
    for ascii_only in (True, False)
    for indent in (None, 2)
]
FENCE_LANGS = ["", "json", "JSON", "javascript"]
NOT_BOOL_SAMPLES: list[Any] = [
    "true", "false", "True", "yes", "grounded", "",
    0, 1, 0.0, None, [], {}, [True], {"value": True},
]  # fmt: skip


class Source(Protocol):
    """The choices material is made of; a seeded generator or Hypothesis makes them."""

    def integer(self, lo: int, hi: int) -> int: ...

    def floating(self) -> float:
        """Any float but NaN, infinities included."""
        ...

    def text(self, max_size: int, alphabet: str | None = None, exclude: str = "") -> str:
        """Unicode text without surrogates, from `alphabet` if given, never holding `exclude`."""
        ...

    def permutation(self, items: list[T]) -> list[T]: ...


def boolean(source: Source) -> bool:
    return source.integer(0, 1) == 1


def choice(source: Source, items: Sequence[T]) -> T:
    return items[source.integer(0, len(items) - 1)]


# Where the seeded source draws its characters: each class equally often, so the rare ones
# that break parsers (NUL, separators, astral plane, JSON syntax) are not drowned in letters.
CHAR_CLASSES: list[tuple[int, int] | str] = [
    (0x20, 0x7E),  # printable ASCII
    '{}[]":,\\`',
    " \t\n\r\x0b\x0c\x85\xa0\u2028\u2029\u3000",
    (0x00, 0x1F),  # C0 controls, NUL among them
    "\u200b\u200d\u202e\u2066\ufeff\x7f",
    (0xA0, 0xFFFD),  # the rest of the BMP; surrogates are drawn again
    (0x10000, 0x10FFFF),
]
SPECIAL_FLOATS = [0.0, -0.0, 0.1, -1.5, 1e16, 1e308, -1e308, 5e-324, 2.2250738585072014e-308]


class SeededSource:
    """Choices from a seeded `random.Random`, calling nothing but its `random()`.

    Python promises that `random()` gives the same sequence for the same seed on every release;
    it does not promise that for `randrange`, `choice` or `shuffle`, so those are built here.
    """

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def _below(self, n: int) -> int:
        # 32 bits per call are exact in a double's 53-bit mantissa; chain calls for wide ranges.
        value, span = 0, 1
        while span < n:
            value = value * 2**32 + int(self._rng.random() * 2**32)
            span *= 2**32
        return value % n

    def _uniform(self, lo: int, hi: int) -> int:
        return lo + self._below(hi - lo + 1)

    def integer(self, lo: int, hi: int) -> int:
        if hi - lo < 256:
            return self._uniform(lo, hi)
        # Wide ranges lean to their ends and to small numbers, where the bugs are.
        kind = self._below(16)
        if kind == 0:
            return lo
        if kind == 1:
            return hi
        if kind < 6 and lo <= 0 <= hi:
            return self._uniform(max(lo, -256), min(hi, 256))
        return self._uniform(lo, hi)

    def floating(self) -> float:
        kind = self._below(4)
        if kind == 0:
            return SPECIAL_FLOATS[self._below(len(SPECIAL_FLOATS))]
        if kind == 1:
            return math.inf if self._below(2) else -math.inf
        if kind == 2:
            # Built from decimal text, which Python rounds correctly everywhere; `10.0 ** n`
            # comes from the platform's libm and may differ in its last bit.
            return float(f"{self._uniform(-(10**15), 10**15)}e{self._uniform(-20, 20)}")
        while True:
            (value,) = struct.unpack("<d", self._below(2**64).to_bytes(8, "little"))
            if not math.isnan(value):
                return float(value)

    def _char(self) -> str:
        kind = CHAR_CLASSES[self._below(len(CHAR_CLASSES))]
        if isinstance(kind, str):
            return kind[self._below(len(kind))]
        while True:
            code = self._uniform(*kind)
            if not 0xD800 <= code <= 0xDFFF:
                return chr(code)

    def text(self, max_size: int, alphabet: str | None = None, exclude: str = "") -> str:
        def draw() -> str:
            return alphabet[self._below(len(alphabet))] if alphabet else self._char()

        chars: list[str] = []
        for _ in range(self._uniform(0, max_size)):
            char = draw()
            while char in exclude:
                char = draw()
            chars.append(char)
        return "".join(chars)

    def permutation(self, items: list[T]) -> list[T]:
        items = list(items)
        for i in range(len(items) - 1, 0, -1):
            j = self._below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


class HypothesisSource:
    """Choices drawn by Hypothesis, so a failure shrinks to the simplest reply that fails."""

    def __init__(self, data: st.DataObject) -> None:
        self._data = data

    def integer(self, lo: int, hi: int) -> int:
        return self._data.draw(st.integers(min_value=lo, max_value=hi))

    def floating(self) -> float:
        return self._data.draw(st.floats(allow_nan=False))

    def text(self, max_size: int, alphabet: str | None = None, exclude: str = "") -> str:
        chars = alphabet if alphabet is not None else st.characters(exclude_characters=exclude)
        return self._data.draw(st.text(chars, max_size=max_size))

    def permutation(self, items: list[T]) -> list[T]:
        return self._data.draw(st.permutations(items))


# The material, described once for both sources.


def short_text(source: Source) -> str:
    return source.text(20)


def spicy_text(source: Source) -> str:
    pieces = source.integer(0, 6)
    return "".join(
        choice(source, FRAGMENTS) if boolean(source) else short_text(source) for _ in range(pieces)
    )


def long_text(source: Source) -> str:
    return choice(source, LOOP_PIECES) * source.integer(1_000, 12_000)


def prose(source: Source) -> str:
    """Prose around a bare verdict: anything that opens no JSON value, no fence and no
    `<think>` block (reasoning is set aside, by the reply contract)."""
    return source.text(40, exclude="{[`<")


def fence_prose(source: Source) -> str:
    """Around a fence the parser reads only the fence, so prose may hold anything but a fence
    or a `<think>` block."""
    return source.text(40, exclude="`<")


def json_scalar(source: Source) -> Any:
    kind = source.integer(0, 4)
    if kind == 0:
        return None
    if kind == 1:
        return boolean(source)
    if kind == 2:
        return source.integer(-(2**63), 2**63)
    if kind == 3:
        return source.floating()
    return spicy_text(source)


def json_value(source: Source, leaves: list[int] | None = None, depth: int = 0) -> Any:
    """A scalar, or lists and objects of up to three items: 8 leaves, 4 levels at most."""
    # One budget of leaves for the whole value, so a list of lists cannot grow without end.
    leaves = [8] if leaves is None else leaves
    kind = source.integer(0, 2) if leaves[0] > 1 and depth < 3 else 0
    if kind == 0:
        leaves[0] -= 1
        return json_scalar(source)
    size = source.integer(0, 3)
    if kind == 1:
        return [json_value(source, leaves, depth + 1) for _ in range(size) if leaves[0] > 0]
    obj: dict[str, Any] = {}
    for _ in range(size):
        if leaves[0] <= 0:
            break
        key = choice(source, VERDICT_KEYS) if boolean(source) else short_text(source)
        obj[key] = json_value(source, leaves, depth + 1)
    return obj


def verdict(source: Source) -> tuple[dict[str, Any], ParsedVerdict]:
    """A valid verdict object (optional keys left out or not, extra keys, any order)."""
    grounded = boolean(source)
    obj: dict[str, Any] = {"grounded": grounded}
    claims: list[str] = []
    reasoning = ""
    if boolean(source):
        claims = [spicy_text(source) for _ in range(source.integer(0, 3))]
        obj["unsupported_claims"] = claims
    if boolean(source):
        reasoning = long_text(source) if boolean(source) else spicy_text(source)
        obj["reasoning"] = reasoning
    for _ in range(source.integer(0, 2)):
        key = short_text(source)
        value = json_value(source)
        if key not in VERDICT_KEYS:
            obj[key] = value
    order = source.permutation(list(obj))
    return {k: obj[k] for k in order}, ParsedVerdict(grounded, claims, reasoning)


class Wrapping:
    """Prose drawn once per piece of material, to wrap every serialization of it the same ways."""

    def __init__(self, source: Source) -> None:
        self.before, self.after = prose(source), prose(source)
        self.fence_before, self.fence_after = fence_prose(source), fence_prose(source)
        self.lang = choice(source, FENCE_LANGS)
        self.space = source.text(3, alphabet=WHITESPACE)

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


def any_reply(source: Source) -> str:
    kind = source.integer(0, 4)
    if kind == 0:
        return source.text(200)
    if kind == 1:
        return spicy_text(source)
    if kind == 2:
        return long_text(source)
    if kind == 3:
        return spicy_text(source) + long_text(source) + spicy_text(source)
    # A verdict whose extra value the model never finished: nesting, digits, quotes.
    return '{"grounded": true, "confidence": ' + long_text(source) + "}"


def valid_replies(source: Source) -> list[tuple[str, ParsedVerdict]]:
    obj, expected = verdict(source)
    wrap = Wrapping(source)
    return [(reply, expected) for text in serializations(obj) for reply in wrap.envelopes(text)]


def not_bool(source: Source) -> Any:
    return choice(source, NOT_BOOL_SAMPLES) if boolean(source) else short_text(source)


def not_str_list(source: Source) -> Any:
    kind = source.integer(0, 4)
    if kind == 0:
        return spicy_text(source)
    if kind == 1:
        items: list[Any] = [None, True, False]
        return [
            source.integer(-(2**63), 2**63) if boolean(source) else choice(source, items)
            for _ in range(source.integer(1, 3))
        ]
    if kind == 2:
        return {short_text(source): short_text(source) for _ in range(source.integer(1, 2))}
    if kind == 3:
        return source.integer(-(2**63), 2**63)
    return None


def not_str(source: Source) -> Any:
    kind = source.integer(0, 2)
    if kind == 0:
        return None
    if kind == 1:
        return source.integer(-(2**63), 2**63)
    return [short_text(source) for _ in range(source.integer(0, 3))]


def truncations(text: str, most: int = 40) -> list[str]:
    """Strict prefixes of the text, cut at up to `most` points spread over its length."""
    step = max(1, len(text) // most)
    return [text[:cut] for cut in range(0, len(text), step)]


def not_verdicts(source: Source) -> list[str]:
    """Replies built from one drawn verdict that hold no verdict readable without guessing."""
    obj, _ = verdict(source)
    other, _ = verdict(source)
    wrap = Wrapping(source)
    pick = source.integer(0, 3)
    dumps = choice(source, DUMPS)
    text = json.dumps(obj, **dumps)
    again = json.dumps(boolean(source))

    def broken(key: str, value: Any) -> str:
        return wrap.any_envelope(json.dumps({**obj, key: value}, **dumps), pick)

    replies = [
        broken("grounded", not_bool(source)),
        broken("unsupported_claims", not_str_list(source)),
        broken("reasoning", not_str(source)),
        # Nested in another object, listed, or quoted as a string: not the reply's verdict.
        wrap.any_envelope(json.dumps({choice(source, ["verdict", "result"]): obj}), pick),
        wrap.any_envelope(json.dumps([obj] * source.integer(1, 2), **dumps), pick),
        wrap.any_envelope(json.dumps({short_text(source): text}), pick),
        # Two verdicts, equal or not, bare or fenced: which one counts would be a guess.
        text + wrap.before + json.dumps(other, **dumps),
        f"```json\n{text}\n```\n{wrap.fence_after}\n```\n{json.dumps(obj)}\n```",
        # JSON keeps the last of two equal keys; a reply that says both has said neither.
        text[:-1] + f', "grounded": {again}}}',
        '{"grounded": ' + again + ", " + text[1:],
        source.text(10, alphabet=WHITESPACE),
    ]
    # A reply cut off anywhere inside its JSON, as by the token limit, fenced or not.
    lead = wrap.before + choice(source, ["", "```json\n"])
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


def json_replies(source: Source) -> list[tuple[str, ParsedVerdict | None]]:
    """Any JSON value, biased towards verdict-shaped objects, with what it should parse to."""
    value: Any
    if boolean(source):
        value = json_value(source)
    else:
        value = {"grounded": boolean(source) if boolean(source) else json_scalar(source)}
        if boolean(source):
            value["unsupported_claims"] = (
                [short_text(source) for _ in range(source.integer(0, 3))]
                if boolean(source)
                else json_value(source)
            )
        if boolean(source):
            value["reasoning"] = short_text(source) if boolean(source) else json_value(source)
    return [(text, contract(value)) for text in serializations(value)]


# The checks, one per property: each asserts on a piece of material and returns the replies
# it checked, so the seeded run can count them.


def check_any(reply: str) -> list[str]:
    assert isinstance(parse_verdict(reply), ParsedVerdict | JudgeFailure)
    return [reply]


def check_round_trip(cases: list[tuple[str, ParsedVerdict]]) -> list[str]:
    for reply, expected in cases:
        assert parse_verdict(reply) == expected, reply[:300]
    return [reply for reply, _ in cases]


def check_not_a_verdict(replies: list[str]) -> list[str]:
    for reply in replies:
        assert isinstance(parse_verdict(reply), JudgeFailure), reply[:300]
    return replies


def check_json_value(cases: list[tuple[str, ParsedVerdict | None]]) -> list[str]:
    for reply, expected in cases:
        parsed = parse_verdict(reply)
        assert parsed == expected if expected else isinstance(parsed, JudgeFailure), reply
    return [reply for reply, _ in cases]


# Each property's seeded material and its check: its own test checks it, the coverage test
# counts its distinct replies.
SEEDED: dict[str, tuple[Callable[[Source], Any], Callable[[Any], list[str]]]] = {
    "any": (any_reply, check_any),
    "round_trip": (valid_replies, check_round_trip),
    "not_a_verdict": (not_verdicts, check_not_a_verdict),
    "json_value": (json_replies, check_json_value),
}


@functools.cache
def seeded_distinct(key: str) -> int:
    """Check the property's seeded material; how many distinct replies it checked.

    Cached, so the coverage test counts the very replies the property's test checked and pays
    for them once.
    """
    # One seed per property, so adding draws to one property leaves the others' material as is.
    source = SeededSource(SEED + sorted(DRAWS).index(key))
    material, check = SEEDED[key]
    seen: set[str] = set()
    for _ in range(DRAWS[key]):
        seen.update(check(material(source)))
    print(f"{key}: {len(seen)} distinct replies from {DRAWS[key]} seeded draws")
    return len(seen)


def seeded(key: str) -> None:
    """Check the property's seeded material; its distinct replies must be the pinned count."""
    distinct = seeded_distinct(key)
    assert distinct == DISTINCT[key], "the generators changed: pin the new count in DISTINCT"


def explored(key: str, material: Callable[[Source], T], check: Callable[[T], list[str]]) -> None:
    """Let Hypothesis search the same material; what it finds is shrunk, nothing is counted."""

    @settings(
        max_examples=EXPLORED[key],
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check(material(HypothesisSource(data)))

    run()


def test_no_exception_escapes() -> None:
    seeded("any")


def test_every_valid_verdict_reads_back_equal() -> None:
    seeded("round_trip")


def test_nothing_else_is_read_as_a_verdict() -> None:
    seeded("not_a_verdict")


def test_any_json_value_reads_as_the_contract_says() -> None:
    seeded("json_value")


def test_no_exception_escapes_explored() -> None:
    explored("any", any_reply, check_any)


def test_every_valid_verdict_reads_back_equal_explored() -> None:
    explored("round_trip", valid_replies, check_round_trip)


def test_nothing_else_is_read_as_a_verdict_explored() -> None:
    explored("not_a_verdict", not_verdicts, check_not_a_verdict)


def test_any_json_value_reads_as_the_contract_says_explored() -> None:
    explored("json_value", json_replies, check_json_value)


def test_the_fuzzing_covers_ten_thousand_replies() -> None:
    """Counted on the replies generated, not on DISTINCT: a re-pinned count cannot pass short."""
    distinct = {key: seeded_distinct(key) for key in MINIMUM}
    short = {key: n for key, n in distinct.items() if n < MINIMUM[key]}
    assert short == {}, f"fewer distinct replies than MINIMUM {MINIMUM}"
    assert sum(distinct.values()) >= 10_000, distinct
