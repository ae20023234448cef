import pytest

from farejudge.scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict
from tests.support.verdict_replies import FINAL, REASONING_REPLIES, THOUGHT, ServerReply

VALID = '{"grounded": false, "unsupported_claims": ["a $2.00 fare"], "reasoning": "P1 says $1.25."}'

READ_AS_VERDICT = [
    ("bare", VALID, False, ["a $2.00 fare"]),
    (
        "json fence",
        'Here is my assessment:\n```json\n{"grounded": true, "unsupported_claims": [], '
        '"reasoning": "All claims are in P1."}\n```',
        True,
        [],
    ),
    ("plain fence", "```\n" + VALID + "\n```", False, ["a $2.00 fare"]),
    (
        "sentence before and after",
        'After checking each claim against the passages: {"grounded": true, '
        '"unsupported_claims": [], "reasoning": "ok"} Let me know if you need more.',
        True,
        [],
    ),
    ("claims list omitted", '{"grounded": true}', True, []),
    (
        "braces inside strings",
        '{"grounded": true, "reasoning": "quotes {\\"x\\"} in P1"}',
        True,
        [],
    ),
    (
        "prose braces before",
        'Fares {see P1} match. {"grounded": true, "unsupported_claims": []}',
        True,
        [],
    ),
    (
        "unicode",
        '{"grounded": false, "unsupported_claims": ["tarifa reducida — 1,25 €"]}',
        False,
        ["tarifa reducida — 1,25 €"],
    ),
    # Found by test_verdict_fuzz.py: the fence inside the string hid the whole verdict.
    (
        "code fence inside reasoning",
        '{"grounded": false, "unsupported_claims": ["x"], "reasoning": "P1 says ```$2```."}',
        False,
        ["x"],
    ),
    (
        "fenced, with a code fence inside reasoning",
        '```json\n{"grounded": true, "reasoning": "see ```P1```"}\n```',
        True,
        [],
    ),
]

FAILURES = [
    ("empty", "", "empty"),
    ("whitespace", "  \n ", "empty"),
    ("prose only", "The answer is grounded in the passages.", "no complete JSON object"),
    (
        "truncated",
        '{"grounded": false, "unsupported_claims": ["the fare is $2',
        "no complete JSON object",
    ),
    (
        "truncated around a quoted verdict",
        '{"grounded": false, "reasoning": "the answer says {\\"grounded\\": true} which',
        "no complete JSON object",
    ),
    ("string false", '{"grounded": "false", "unsupported_claims": []}', "not a JSON boolean"),
    ("number", '{"grounded": 0, "unsupported_claims": []}', "not a JSON boolean"),
    ("null", '{"grounded": null}', "not a JSON boolean"),
    (
        "two objects",
        '{"grounded": true} and then {"grounded": false, "unsupported_claims": ["x"]}',
        "2 verdict objects",
    ),
    ("nested only", '{"verdict": {"grounded": true}}', "no complete JSON object"),
    (
        "claims not a list",
        '{"grounded": false, "unsupported_claims": "the $2 fare"}',
        "not a list of strings",
    ),
    (
        "reasoning not a string",
        '{"grounded": true, "reasoning": ["a"]}',
        "'reasoning' is not a string",
    ),
    ("a list, not an object", '[{"grounded": true}]', "no complete JSON object"),
    # Found by test_verdict_fuzz.py: each of these used to raise out of the parser or be
    # read as the last of two answers.
    ("nested past the recursion limit", "[" * 5000, "no complete JSON object"),
    (
        "a number too long to convert",
        '{"grounded": true, "confidence": ' + "9" * 5000 + "}",
        "no complete JSON object",
    ),
    (
        "grounded given twice",
        '{"grounded": false, "unsupported_claims": ["x"], "grounded": true}',
        "'grounded' is given more than once",
    ),
]


@pytest.mark.parametrize(("name", "reply", "grounded", "claims"), READ_AS_VERDICT)
def test_reads_verdicts(name: str, reply: str, grounded: bool, claims: list[str]) -> None:
    parsed = parse_verdict(reply)
    assert isinstance(parsed, ParsedVerdict), name
    assert parsed.grounded is grounded
    assert parsed.unsupported_claims == claims


@pytest.mark.parametrize(("name", "reply", "reason"), FAILURES)
def test_judge_failures_are_never_guessed(name: str, reply: str, reason: str) -> None:
    parsed = parse_verdict(reply)
    assert isinstance(parsed, JudgeFailure), name
    assert reason in parsed.reason


@pytest.mark.parametrize(
    ("name", "reply", "expected", "where"),
    [(name, *row) for name, row in REASONING_REPLIES.items()],
)
def test_only_the_final_answer_is_read(
    name: str, reply: ServerReply, expected: bool | str, where: str
) -> None:
    parsed = parse_verdict(reply.text, reply.stop_reason, reply.reasoning)
    if isinstance(expected, bool):
        assert isinstance(parsed, ParsedVerdict), (name, parsed)
        assert parsed.grounded is expected, name
    else:
        assert isinstance(parsed, JudgeFailure), (name, parsed)
        assert expected in parsed.reason, (name, parsed.reason)
    if where:
        assert where in parsed.set_aside and "set aside" in parsed.set_aside, parsed.set_aside
    else:
        assert parsed.set_aside == "", parsed.set_aside


def test_what_was_set_aside_is_counted() -> None:
    parsed = parse_verdict(f"<think>\n{THOUGHT}\n</think>\n{FINAL}", reasoning=("a b", ""))
    assert parsed.set_aside == (
        "reasoning (3 chars, in 2 separate parts) set aside; "
        f"reasoning ({len(THOUGHT)} chars, in a <think> block) set aside"
    )
