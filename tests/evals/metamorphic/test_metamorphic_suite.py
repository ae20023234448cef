"""`-T suite=metamorphic` end to end on mockllm: scripted judges with one blind spot each."""

from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from farejudge.comparison.cli import run as compare
from tests.support.metamorphic_runs import run


def metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    scores = next(s for s in log.results.scores if s.name == "verdict_agreement")
    return {name: m.value for name, m in scores.metrics.items()}


@pytest.mark.slow
def test_a_judge_right_on_gold_is_right_on_every_relation(tmp_path: Path) -> None:
    log = run(tmp_path, blind_to=None)
    m = metrics(log)
    relations = {name for name in m if name.startswith("relation:")}
    assert {"relation:gold", "relation:fetch_date_shifted", "relation:passage_order"} <= relations
    assert all(m[name] == 1.0 for name in relations)
    assert m["consistency_failure_rate"] == 0.0
    assert log.samples is not None
    derived = [s for s in log.samples if "~" in str(s.id)]
    assert derived, "the suite holds derived cases"
    review = (derived[0].scores or {})["verdict_agreement"].value
    assert isinstance(review, dict) and review["derived_from"] == str(derived[0].id).split("~")[0]
    explanation = (derived[0].scores or {})["verdict_agreement"].explanation or ""
    assert "Derived from its gold case by the edit" in explanation


@pytest.mark.parametrize(
    "relation",
    [
        # Ignores provenance: accepts a fetch date no provenance line gives (v3's rule).
        "fetch_date_shifted",
        # Reads prior turns as evidence (v2's rule).
        "fact_moved_to_turns",
        # Swayed by passage order.
        "passage_order",
    ],
)
@pytest.mark.slow
def test_a_blind_spot_shows_on_its_relation_alone(tmp_path: Path, relation: str) -> None:
    m = metrics(run(tmp_path, blind_to=relation))
    others = [n for n in m if n.startswith("relation:") and n != f"relation:{relation}"]
    assert all(m[n] == 1.0 for n in others)
    # A directional case is ungrounded: calling it grounded is wrong on every one. An
    # invariance case keeps gold, so only its ungrounded cases are missed.
    assert m[f"relation:{relation}"] < 1.0
    if relation != "passage_order":
        assert m[f"relation:{relation}"] == 0.0
    assert m["consistency_failure_rate"] > 0.0


@pytest.mark.slow
def test_the_report_names_the_failing_relation(tmp_path: Path) -> None:
    run(tmp_path, blind_to="fetch_date_shifted")
    out = tmp_path / "report"
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"]) in (0, 1)
    text = (out / "report.md").read_text(encoding="utf-8")
    section = text.split("## Accuracy by metamorphic relation")[1].split("\n## ")[0]
    assert "| fetch_date_shifted | " in section and "| 0.00 [" in section
    assert "| gold | " in section
    # Every fetch_date_shifted case is a consistency failure: its gold case was right.
    examples = section.split("_Failing examples on v3")[1]
    assert "~fetch_date_shifted | fetch_date_shifted | mockllm/model | grounded |" in examples
    assert "~passage_order" not in examples
    assert "## Token use per case" in text


@pytest.mark.slow
def test_the_report_says_which_relation_a_prompt_change_broke(tmp_path: Path) -> None:
    run(tmp_path, blind_to=None, version="v2")
    v3 = run(tmp_path, blind_to="fetch_date_shifted")
    broken = sum(1 for s in v3.samples or [] if str(s.id).endswith("~fetch_date_shifted"))
    out = tmp_path / "report"
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"]) == 1
    text = (out / "report.md").read_text(encoding="utf-8")
    table = text.split("_Which relations a prompt change improved or worsened")[1]
    assert f"| v2 → v3 | mockllm/model | fetch_date_shifted | 0 | {broken} |" in table
    assert "v3 breaks" in text
