"""The task held to a confidence threshold: given as a number (`-T threshold=`) or read from the
decision judge-compare wrote (`-T decision=`), each sample is marked decided alone or escalated,
in its score's value, its explanation and the viewer's columns; a threshold the run cannot use
is one line naming the option."""

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.viewer import TaskSamplesView

from farejudge.comparison.cli import EXIT_OK
from farejudge.comparison.cli import run as judge_compare
from farejudge.core.case_schema import Case
from farejudge.core.errors import InputError
from farejudge.evals import deployed_judge
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.scorers.viewer_columns import VERDICT_SCORER
from farejudge.testing.synthetic_cases import write_cases
from tests.support.logprob_judges import run_logprob_judge

# 60 synthetic cases: the judge is right and 0.99 sure on the first 50; on the last 10, 0.6
# sure and right on every other one.
SURE = 50


def answer(case: Case) -> tuple[bool, float]:
    index = int(case.id.removeprefix("syn-"))
    right = index < SURE or index % 2 == 0
    sure = 0.99 if index < SURE else 0.6
    grounded = case.label.grounded if right else not case.label.grounded
    return grounded, 1 - sure if grounded else sure


def _values(log: EvalLog) -> dict[str, Any]:
    """Each sample's verdict score, by case."""
    return {str(s.id): s.scores[VERDICT_SCORER] for s in log.samples or [] if s.scores}


def _view(log: EvalLog) -> TaskSamplesView:
    view = log.eval.viewer
    assert view is not None and isinstance(view.task_samples_view, TaskSamplesView)
    return view.task_samples_view


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("held") / "cases.jsonl"
    write_cases(path, 60)
    return path


@pytest.mark.model
def test_a_run_with_a_threshold_marks_each_sample(cases: Path, tmp_path: Path) -> None:
    log = run_logprob_judge(cases, answer, tmp_path / "logs", "mockllm/held", threshold=0.9)
    assert log.eval.metadata is not None and log.eval.metadata["threshold"] == 0.9
    scores = _values(log)
    marked = {case: score.value["escalation"] for case, score in scores.items()}
    assert [case for case, said in marked.items() if said == "escalated"] == [
        f"syn-{i:05d}" for i in range(SURE, 60)
    ]
    decided = scores["syn-00001"]
    assert decided.value["confidence"] == pytest.approx(0.99)
    assert decided.explanation.endswith(
        "Decided alone: the judge's confidence in its verdict, 0.990, is at or above the "
        "threshold 0.9."
    )
    escalated = scores["syn-00051"]
    assert escalated.explanation.endswith(
        "Escalated to a person: the judge's confidence in its verdict, 0.600, is below the "
        "threshold 0.9."
    )
    # The viewer shows the mark as a column, coloured; the metrics are as without it.
    view = _view(log)
    shown = {c.id: c.visible for c in view.columns or []}
    assert shown[f"score__{VERDICT_SCORER}__escalation"] is True
    assert shown[f"score__{VERDICT_SCORER}__confidence"] is False
    assert view.score_color_scales is not None
    assert view.score_color_scales["escalation"] == {
        "decided": "good",
        "escalated": "warn",
    }
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    assert metrics["verdict_accuracy"].value == pytest.approx(55 / 60)


@pytest.mark.model
def test_without_a_threshold_nothing_is_marked(cases: Path, tmp_path: Path) -> None:
    log = run_logprob_judge(cases, answer, tmp_path / "logs", "mockllm/unheld")
    assert log.eval.metadata is not None and "threshold" not in log.eval.metadata
    assert all("escalation" not in s.value for s in _values(log).values())
    assert not [c for c in _view(log).columns or [] if "escalation" in c.id]


@pytest.mark.model
def test_the_threshold_read_from_a_decision_judge_compare_wrote(
    cases: Path, tmp_path: Path
) -> None:
    """judge-compare --alpha 0.1 on this judge's run: its 50 sure verdicts pass at 0.975
    (0.9^50 = 0.005), and with the last 10 at 0.6 (5 wrong of 60, p = 0.38) the testing stops.
    Deciding alone what it is sure of, a person the rest, beats the judge alone on quality: the
    pick is the judge with its threshold, which a new run reads back."""
    first = run_logprob_judge(cases, answer, tmp_path / "first", "mockllm/picked")
    out = tmp_path / "out"
    code = judge_compare([str(Path(first.location).parent), "--out", str(out), "--alpha", "0.1"])
    assert code == EXIT_OK
    decision = json.loads((out / "decision.json").read_text(encoding="utf-8"))
    assert decision["prefer"]["stages"] == [
        {"version": "v3", "model": "mockllm/picked", "threshold": 0.975}
    ]
    held = run_logprob_judge(
        cases, answer, tmp_path / "held", "mockllm/picked", decision=str(out / "decision.json")
    )
    assert held.eval.metadata is not None and held.eval.metadata["threshold"] == 0.975
    marked = [s.value["escalation"] for s in _values(held).values()]
    assert marked.count("decided") == SURE and marked.count("escalated") == 10


def _decision(tmp_path: Path, prefer: object) -> str:
    path = tmp_path / "decision.json"
    path.write_text(json.dumps({"prefer": prefer, "reason": "No candidate meets it."}), "utf-8")
    return str(path)


STAGE = {"version": "v3", "model": "mockllm/other", "threshold": 0.9}


@pytest.mark.parametrize(
    ("prefer", "model", "line"),
    [
        (None, "mockllm/model", "it prefers no judge (No candidate meets it.)"),
        (
            {"version": "v3", "model": "mockllm/model"},
            "mockllm/model",
            "the judge it prefers, v3 with mockllm/model, decides every answer alone, with no "
            "threshold "
            "(judge-compare --alpha or --min-agreement calibrates one)",
        ),
        (
            {"version": "v3", "model": "mockllm/other → a person", "stages": [STAGE]},
            "mockllm/model",
            "the judge it prefers, v3 with mockllm/other → a person, has no stage for v3 with "
            "mockllm/model (v3 with mockllm/other)",
        ),
        (
            {"version": "v3", "model": "mockllm/other → a person", "stages": [STAGE]},
            None,
            "the judge model is not known as the task is made, so no stage of the judge it "
            "prefers can be chosen; give the threshold itself (-T threshold=)",
        ),
        (
            {
                "version": "v3",
                "model": "mockllm/model → a person",
                "stages": [{**STAGE, "model": "mockllm/model", "threshold": None}],
            },
            "mockllm/model",
            "in the judge it prefers, v3 with mockllm/model → a person, v3 with mockllm/model "
            "decides nothing alone: no threshold met the guarantee",
        ),
    ],
)
def test_a_decision_without_a_threshold_for_this_run_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    prefer: object,
    model: str | None,
    line: str,
) -> None:
    monkeypatch.setattr(deployed_judge, "active_model", lambda: model)
    path = _decision(tmp_path, prefer)
    with pytest.raises(InputError) as raised:
        judge_groundedness(graded="logprobs", decision=path)
    assert raised.value.problems == [f"-T decision={path}: {line}"]


def test_a_decision_that_is_no_decision_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "decision.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        judge_groundedness(graded="logprobs", decision=str(path))
    assert raised.value.problems == [
        f"-T decision={path}: not JSON (line 1: Expecting property name enclosed in double quotes)"
    ]
    path.write_text(json.dumps({"quality": "recall"}), encoding="utf-8")
    with pytest.raises(
        InputError, match=r": not a judge-compare decision \(prefer: Field required"
    ):
        judge_groundedness(graded="logprobs", decision=str(path))


def test_a_threshold_and_a_decision_together_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        judge_groundedness(graded="logprobs", threshold=0.9, decision=str(tmp_path / "d.json"))
    assert raised.value.problems == ["-T threshold= and -T decision=: give one of them"]


@pytest.mark.parametrize(
    ("graded", "problem"),
    [
        ("off", "has no graded score (graded=off)"),
        ("epochs", "is graded by agreement over epochs (graded=epochs)"),
    ],
)
def test_a_threshold_for_a_run_without_a_confidence_per_sample(
    graded: str, problem: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Made outside an eval, the task knows no model (an earlier eval in this process would have
    # left its own as Inspect's active model).
    monkeypatch.setattr(deployed_judge, "active_model", lambda: None)
    with pytest.raises(InputError) as raised:
        judge_groundedness(graded=graded, threshold=0.9)
    (line,) = raised.value.problems
    assert line.startswith(f"-T threshold=0.9: this v3 run {problem}")


def test_a_relative_decision_is_found_where_the_command_was_typed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`inspect eval evals/judge_groundedness.py -T decision=reports/decision.json` from the
    repository: Inspect imports the task file from evals/, so the path is read from the folder
    the command was typed in (the shell's PWD), as `-T dataset=` is."""
    (tmp_path / "reports").mkdir()
    (tmp_path / "evals").mkdir()
    stage = {"version": "v3", "model": "mockllm/model", "threshold": 0.9}
    _decision(
        tmp_path / "reports", {**stage, "model": "mockllm/model → a person", "stages": [stage]}
    )
    monkeypatch.setenv("PWD", str(tmp_path))
    monkeypatch.chdir(tmp_path / "evals")
    monkeypatch.setattr(deployed_judge, "active_model", lambda: "mockllm/model")
    task = judge_groundedness(graded="logprobs", decision="reports/decision.json")
    assert task.metadata is not None and task.metadata["threshold"] == 0.9


def test_a_decision_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "decision.json"
    path.write_bytes(b'{"prefer": "\xff"}')
    with pytest.raises(InputError) as raised:
        judge_groundedness(graded="logprobs", decision=str(path))
    assert raised.value.problems == [f"-T decision={path}:1: byte 0xff at offset 12 is not UTF-8"]
