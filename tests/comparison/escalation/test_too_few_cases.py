"""Too few cases: the embedded judge on the shipped 144 cases gets no threshold, and the report
says so, with the best alpha it can guarantee and what more gold would (not) do, claiming no
guarantee and without crashing.

The judge is scripted to reproduce the embedded judge's run: tests/fixtures/embedded_judge_v3.jsonl
holds, per shipped case, the verdict and P(ungrounded) that SmolLM2-135M (gguf/smollm2-135m, v3,
`-T graded=auto`: logprobs) gave in a real run of `inspect eval evals/judge_groundedness.py` on
2026-12-06 (144 cases, accuracy 0.438). It said grounded on every case.
"""

import json
from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_OK, run
from farejudge.core.case_schema import Case
from farejudge.core.decision_file import DECISION_FILE
from farejudge.evals.dataset import DEFAULT_CASES
from tests.support.logprob_judges import run_logprob_judge
from tests.support.paths import FIXTURES, REPO_ROOT

pytestmark = pytest.mark.slow

RECORDED = {
    r["id"]: r
    for r in (
        json.loads(line)
        for line in (FIXTURES / "embedded_judge_v3.jsonl").read_text("utf-8").splitlines()
    )
}


def _shipped_cases(path: Path) -> Path:
    """The shipped cases the recording covers, in one file."""
    lines = [
        line
        for file in sorted(DEFAULT_CASES.glob("*.jsonl"))
        for line in file.read_text(encoding="utf-8").splitlines()
        if line.strip() and json.loads(line)["id"] in RECORDED
    ]
    assert len(lines) == len(RECORDED) == 144
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _recorded(case: Case) -> tuple[bool, float]:
    found = RECORDED[case.id]
    return bool(found["grounded"]), float(found["p_ungrounded"])


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("too_few")
    cases = _shipped_cases(root / "cases.jsonl")
    run_logprob_judge(cases, _recorded, root / "logs", "mockllm/embedded-as-recorded")
    code = run([str(root / "logs"), "--out", str(root / "out"), "--alpha", "0.1", "--quiet"])
    assert code == EXIT_OK
    return root / "out"


def test_the_report_says_no_threshold_meets_the_target_and_what_would(compared: Path) -> None:
    report = (compared / "report.md").read_text(encoding="utf-8")
    section = report[report.index("## Escalation with a guarantee") :]
    section = section[: section.index("\n## ", 3)]
    print(f"\n{section}")
    said = (
        "v3 with mockllm/embedded-as-recorded: no threshold meets α = 0.1 at δ = 0.1 on these "
        "144 gold cases, so it decides nothing alone and guarantees nothing; it opened on 0.925 "
        "(38 decided, 25 wrong: p = 1). The best it can guarantee here is α = 0.761 (23.9 % "
        "agreement); no number of gold cases would do for α = 0.1: it is wrong on 25 of the 38 "
        "it is surest of (at 0.925)."
    )
    assert said in section
    # docs/escalation.md quotes it, for the embedded judge's own run.
    page = " ".join((REPO_ROOT / "docs" / "escalation.md").read_text("utf-8").split())
    quoted = said.replace("mockllm/embedded-as-recorded", "gguf/smollm2-135m")
    assert quoted in page.replace("> ", "")
    row = next(line for line in section.splitlines() if line.startswith("| v3 with"))
    assert row.split(" | ")[3:6] == ["none", "none", "0 % [0 %, 3 %] (0 of 144)"]
    # No selective candidate joins the deploy decision: it would send every answer to a person.
    deploy = report[report.index("## Which judge to deploy") : report.index("## Escalation")]
    assert "→ a person |" not in deploy


def test_the_decision_claims_no_guarantee(compared: Path) -> None:
    decision = json.loads((compared / DECISION_FILE).read_text(encoding="utf-8"))
    (alone,) = decision["escalation"]["alone"]
    (stage,) = alone["stages"]
    assert alone["guaranteed_agreement"] is None
    assert (alone["coverage"]["estimate"], alone["person_share"]) == (0.0, 1.0)
    assert stage["threshold"] is None
    assert stage["best_alpha"] == pytest.approx(0.761, abs=5e-4)
    assert stage["cases_needed"] is None
    assert stage["tests"] == [
        {
            "threshold": 0.925,
            "decided": 38,
            "errors": 25,
            "p_value": pytest.approx(1.0),
            "rejected": False,
        }
    ]
    # The judge deciding every answer alone guarantees only what its record shows.
    (plain,) = decision["frontier"]
    assert plain["stages"] is None and plain["selective"] is None
    assert plain["guaranteed_agreement"] < 0.9
