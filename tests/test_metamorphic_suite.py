"""`-T suite=metamorphic` end to end on mockllm: scripted judges with one blind spot each."""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, get_model
from inspect_ai.tool import ToolChoice, ToolInfo

from farejudge.comparison.cli import run as compare
from farejudge.core.case_schema import Verdict
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples
from farejudge.testing.scripted_judge import mock_output
from tests.cli import task_file

# Multi-turn and provenance cases: every relation applies to some of them.
CASE_FILES = ["conv.jsonl", "provenance.jsonl"]

# How a judge with one blind spot answers the cases of one relation: it says grounded.
Blind = Callable[[str | None], bool]


def write_cases(path: Path) -> Path:
    lines = [
        line
        for name in CASE_FILES
        for line in (DEFAULT_CASES / name).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(tmp_path: Path, blind_to: str | None, version: str = "v3") -> EvalLog:
    """The suite, judged by gold except on `blind_to`'s cases, which it calls grounded."""
    cases_file = write_cases(tmp_path / "cases.jsonl")
    samples, _ = suite_samples(load_cases(cases_file), "metamorphic", load_prompt_version(version))
    by_prompt = {
        sample.input[-1].text: sample  # type: ignore[union-attr]
        for sample in samples
    }

    def respond(
        messages: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:  # fmt: skip
        sample = by_prompt[messages[-1].text]
        gold = Verdict.model_validate_json(str(sample.target))
        if sample.metadata and sample.metadata["relation"] == blind_to:
            gold = Verdict(grounded=True, unsupported_claims=[])
        return mock_output(json.dumps({**gold.model_dump(), "reasoning": "scripted"}))

    (log,) = eval(
        task_file(),
        task_args={"dataset": str(cases_file), "suite": "metamorphic", "prompt_version": version},
        model=get_model("mockllm/model", custom_outputs=respond, memoize=False),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


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
