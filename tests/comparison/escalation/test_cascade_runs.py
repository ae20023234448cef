"""The cascade through judge-compare: three scripted judges with known prices, run through the
task and priced by Inspect, give the known cheapest cascade that meets --min-agreement, at a cost
per 1,000 answers counted by hand.

400 synthetic cases in four groups by index: easy (0-239), medium (240-339), hard (340-379) and
very hard (380-399); every fourth case (index divisible by 4) is one an unsure judge still gets
right. Each judge's reply carries the probability of its verdict in its token logprobs:

| judge | price a call | easy | medium | hard | very hard |
| A | $0.001 | 0.99 sure, right | 0.61, right on every fourth | as medium | as medium |
| B | $0.01 | 0.99, right | 0.91, wrong on 250, 290, 330 | 0.61, right on every fourth | as hard |
| C | $0.10 | 0.99, right | 0.99, right | 0.99, right | 0.61, right on every fourth |

The same judges as tests/comparison/escalation/test_cascade.py, there as arrays, here as runs.
"""

import json
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import binom

from farejudge.comparison.cli import EXIT_INPUT, EXIT_OK, run
from farejudge.core.case_schema import Case
from farejudge.core.decision_file import DECISION_FILE
from farejudge.testing.synthetic_cases import write_cases
from tests.support.deploy_judges import cost_per_call, price_file, register
from tests.support.logprob_judges import Answer, run_logprob_judge

pytestmark = pytest.mark.slow

A, B, C = (f"mockllm/cascade-{name}" for name in "abc")
PRICES = {A: (1.0, 5.0), B: (10.0, 50.0), C: (100.0, 500.0)}
"""Dollars per million input and output tokens: 700 and 60 a call make $0.001, $0.01, $0.10."""
HUMAN = 1.0
MEDIUM_WRONG_FOR_B = {250, 290, 330}


def _group(index: int) -> int:
    return 0 if index < 240 else 1 if index < 340 else 2 if index < 380 else 3


def _answer(judge: str) -> Answer:
    def answer(case: Case) -> tuple[bool, float]:
        index = int(case.id.removeprefix("syn-"))
        group = _group(index)
        unsure_right = index % 4 == 0
        if judge == A:
            sure, right = (0.99, True) if group == 0 else (0.61, unsure_right)
        elif judge == B:
            if group == 0:
                sure, right = 0.99, True
            elif group == 1:
                sure, right = 0.91, index not in MEDIUM_WRONG_FOR_B
            else:
                sure, right = 0.61, unsure_right
        else:
            sure, right = (0.99, True) if group < 3 else (0.61, unsure_right)
        grounded = case.label.grounded if right else not case.label.grounded
        return grounded, 1 - sure if grounded else sure

    return answer


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cascade")
    cases = root / "cases.jsonl"
    write_cases(cases, 400)
    register(list(PRICES))
    prices = price_file(root / "prices.yaml", PRICES)
    for judge in (A, B, C):
        run_logprob_judge(cases, _answer(judge), root / "logs", judge, prices)
    return root / "logs"


def _compare(logs: Path, out: Path, *options: str) -> tuple[int, dict[str, Any]]:
    code = run([str(logs), "--out", str(out), "--resamples", "50", "--quiet", *options])
    if code == EXIT_INPUT:
        return code, {}
    return code, json.loads((out / DECISION_FILE).read_text(encoding="utf-8"))


def test_the_cheapest_cascade_meeting_the_minimum_agreement_and_its_cost_by_hand(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--min-agreement 0.9 (alpha 0.1), delta 0.1, a review $1. A → B → C, at delta / 3 each:

    - A on all 400: at 0.975 the 240 easy cases, none wrong (p = 0.9^240), rejected; at 0.6
      all 400, 120 wrong: not. A decides 240.
    - B on the 160 A escalated: at 0.9 the 100 medium, 3 wrong: p = P(Bin(100, 0.1) <= 3) =
      0.0078 <= 0.0333, rejected; at 0.6 all 160, 48 wrong: not. B decides 100.
    - C on the 60 left: at 0.975 the 40 hard, none wrong: p = 0.9^40 = 0.0148, rejected; at
      0.6, 60 with 15 wrong: not. C decides 40; 20 go to a person.
    - Per 1,000 answers: A's 1,000 calls $1.00; B's 400 (160 of 400) $4.00; C's 150 (60 of
      400) $15.00; 50 reviews (20 of 400) $50.00. In all $70.00.

    The others that meet it, by the same counts: B → C $75 (10 + 15 + 50); A → C $91
    (1 + 40 + 50); C alone, deciding all 400 (15 wrong: its exact 90 % bound 5.1 %), $100,
    plain or selective. The plain judges A and B are wrong on 30 % and 12 %: they fail it.
    """
    assert binom.cdf(3, 100, 0.1) <= 0.1 / 3 and 0.9**40 <= 0.1 / 3
    assert [round(1000 * cost_per_call(*PRICES[j]), 9) for j in (A, B, C)] == [1, 10, 100]
    code, decision = _compare(
        logs, tmp_path, "--min-agreement", "0.9", "--human-cost-per-review", str(HUMAN)
    )
    assert code == EXIT_OK
    err = capsys.readouterr().err
    cascade = f"v3 with {A} → {B} → {C} → a person"
    print(f"\n{err}")
    assert f"deploy: pick {cascade}" in err

    pick = decision["pick"]
    assert pick == {
        "version": "v3",
        "model": f"{A} → {B} → {C} → a person",
        "stages": [
            {"version": "v3", "model": A, "threshold": 0.975},
            {"version": "v3", "model": B, "threshold": 0.9},
            {"version": "v3", "model": C, "threshold": 0.975},
        ],
    }
    frontier = {f"{c['version']} with {c['model']}": c for c in decision["frontier"]}
    chosen = frontier[cascade]
    assert chosen["cost_per_1k"]["estimate"] == pytest.approx(1 + 4 + 15 + 50)
    selective = chosen["selective"]
    assert selective["cost_per_1k"] == pytest.approx(70.0)
    assert selective["reviews_per_1k"] == pytest.approx(50.0)
    assert [s["share"] for s in selective["stages"]] == pytest.approx([0.6, 0.25, 0.1])
    assert [s["reached"] for s in selective["stages"]] == [400, 160, 60]
    assert [s["delta"] for s in selective["stages"]] == pytest.approx([0.1 / 3] * 3)
    assert selective["person_share"] == pytest.approx(0.05)
    assert chosen["guaranteed_agreement"] == pytest.approx(0.9)

    by_hand = {
        f"v3 with {B} → {C} → a person": 10 + 15 + 50,
        f"v3 with {A} → {C} → a person": 1 + 40 + 50,
        f"v3 with {C} → a person": 100,
        f"v3 with {C}": 100,
    }
    for name, cost in by_hand.items():
        assert frontier[name]["cost_per_1k"]["estimate"] == pytest.approx(cost), name
        assert frontier[name]["meets_constraints"], name
    assert decision["runner_up"]["model"] == f"{B} → {C} → a person"
    for plain in (A, B):
        assert frontier[f"v3 with {plain}"]["failed_constraints"] == ["--min-agreement"]
    # The report's words for it.
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"Deploy {cascade}: the cheapest, $70.0000 per 1,000 answers" in report
    assert "cascade-a 60 % · cascade-b 25 % · cascade-c 10 % · a person 5 %" in report


def test_a_cascade_named_in_order_is_the_one_tried(logs: Path, tmp_path: Path) -> None:
    """--cascade A,C: A decides the 240 easy cases; C, at delta / 2 on the 160 left, decides the
    140 medium and hard (0.9^140) and not the very hard (15 wrong of 160 at 0.6: 9.4 %, whose
    p = P(Bin(160, 0.1) <= 15) is above 0.05). $1 + $40 + 20 reviews in 400 ($50) = $91: cheaper
    than C alone ($100), the only other candidate that meets 90 %."""
    assert binom.cdf(15, 160, 0.1) > 0.05
    code, decision = _compare(
        logs,
        tmp_path,
        "--min-agreement",
        "0.9",
        "--human-cost-per-review",
        str(HUMAN),
        "--cascade",
        f"v3/{A},v3/{C}",
    )
    assert code == EXIT_OK
    assert decision["pick"]["model"] == f"{A} → {C} → a person"
    (named,) = decision["escalation"]["cascades"]
    assert named["cost_per_1k"] == pytest.approx(91.0)
    assert [s["threshold"] for s in named["stages"]] == [0.975, 0.975]


@pytest.mark.parametrize(
    ("option", "line"),
    [
        (
            f"v3/{A},v3/mockllm/cascade-z",
            "--cascade v3/mockllm/cascade-z: no graded run or panel v3 with "
            "mockllm/cascade-z in these logs",
        ),
        (f"v3/{A}", f"--cascade v3/{A}: name two or three candidates, cheapest first"),
        (
            f"cascade-a,v3/{B}",
            f"--cascade cascade-a,v3/{B}: 'cascade-a' is not VERSION/MODEL (v3/openai/gpt-4o-mini)",
        ),
    ],
)
def test_a_cascade_these_logs_cannot_make_is_one_line(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str, line: str
) -> None:
    code, _ = _compare(logs, tmp_path, "--cascade", option)
    assert code == EXIT_INPUT
    assert capsys.readouterr().err.strip().splitlines() == [f"judge-compare: error: {line}"]
