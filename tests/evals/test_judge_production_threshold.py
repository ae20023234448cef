"""The production judge held to a confidence threshold (`-T threshold=`, or a decision whose
pick is the judge then a person): each answer marked decided alone or escalated, in its score's
value, its explanation, a viewer column and what the audit reads; a threshold the run cannot
use is one line naming the option."""

import json
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog
from inspect_ai.scorer import Score
from inspect_ai.viewer import TaskSamplesView

from farejudge.audit.inputs.judged import read_judged
from farejudge.core.drafts import Draft
from farejudge.core.errors import InputError
from farejudge.evals import deployed_judge
from farejudge.evals.judge_production import judge_production
from farejudge.scorers.viewer_columns import PRODUCTION_SCORER
from farejudge.testing.production_runs import judge_says, write_drafts
from tests.support.audit_runs import MODEL, held_escalates, index_of, judge_period_held

COUNT = 40
ESCALATION = f"score__{PRODUCTION_SCORER}__escalation"


@pytest.fixture(scope="module")
def period(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Draft], Path]:
    drafts = tmp_path_factory.mktemp("held") / "drafts.jsonl"
    return write_drafts(drafts, COUNT), drafts


def _scores(log: EvalLog) -> dict[str, Score]:
    assert log.status == "success", log.error
    return {str(s.id): s.scores[PRODUCTION_SCORER] for s in log.samples or [] if s.scores}


def _marks(log: EvalLog) -> dict[str, str]:
    """Each answer's mark: decided or escalated."""
    values = {draft: score.value for draft, score in _scores(log).items()}
    return {
        d: str(v["escalation"])
        for d, v in values.items()
        if isinstance(v, dict) and "escalation" in v
    }


def _view(log: EvalLog) -> TaskSamplesView:
    view = log.eval.viewer
    assert view is not None and isinstance(view.task_samples_view, TaskSamplesView)
    return view.task_samples_view


def _selective(path: Path, stages: list[dict[str, object]]) -> Path:
    """A decision.json whose pick is `stages`, then a person (the keys the task reads)."""
    judges = " → ".join(str(s["model"]) for s in stages)
    prefer = {"version": "v3", "model": f"{judges} → a person", "stages": stages}
    path.write_text(json.dumps({"prefer": prefer, "reason": None}), encoding="utf-8")
    return path


@pytest.mark.model
def test_a_run_with_a_threshold_marks_each_answer(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    drafts, path = period
    log = judge_period_held(path, tmp_path / "logs", threshold=0.9)
    assert (log.eval.metadata or {})["threshold"] == 0.9
    numbers = index_of(drafts)
    marks = _marks(log)
    expected = {d: "escalated" if held_escalates(numbers[d]) else "decided" for d in marks}
    assert marks == expected
    assert 0 < list(marks.values()).count("escalated") < COUNT
    by_id = _scores(log)
    failed = [d for d in marks if judge_says(numbers[d]) == "failure"]
    assert failed and str(by_id[failed[0]].explanation).endswith(
        "Escalated to a person: a judge failure, no verdict to hold to the threshold 0.9."
    )
    decided = next(d for d, said in marks.items() if said == "decided")
    assert str(by_id[decided].explanation).endswith(
        "Decided alone: the judge's confidence in its verdict, 0.970, is at or above the "
        "threshold 0.9."
    )
    shown = {c.id: c.visible for c in _view(log).columns or []}
    assert shown[ESCALATION] is True
    # What the audit reads: the escalated answers, and the threshold.
    judged = read_judged([str(tmp_path / "logs")])
    assert judged.threshold == 0.9
    escalated = {d for d, up in zip(judged.ids.tolist(), judged.escalated, strict=True) if up}
    assert escalated == {d for d, said in marks.items() if said == "escalated"}


@pytest.mark.model
def test_without_a_threshold_nothing_is_marked(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    _, path = period
    log = judge_period_held(path, tmp_path / "logs")
    assert (log.eval.metadata or {})["threshold"] is None
    assert len(_scores(log)) == COUNT and not _marks(log)
    assert ESCALATION not in {c.id for c in _view(log).columns or []}
    judged = read_judged([str(tmp_path / "logs")])
    assert judged.threshold is None and not judged.escalated.any()


@pytest.mark.model
def test_a_decision_whose_pick_escalates_to_a_person_gives_its_threshold(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    drafts, path = period
    decision = _selective(
        tmp_path / "decision.json", [{"version": "v3", "model": MODEL, "threshold": 0.9}]
    )
    log = judge_period_held(path, tmp_path / "logs", decision=str(decision))
    metadata = log.eval.metadata or {}
    assert metadata["threshold"] == 0.9
    assert metadata["decision"] == {"file": str(decision), "version": "v3", "model": MODEL}
    numbers = index_of(drafts)
    assert {d for d, said in _marks(log).items() if said == "escalated"} == {
        d.id for d in drafts if held_escalates(numbers[d.id])
    }


@pytest.mark.parametrize(
    ("stages", "options", "expected"),
    [
        (
            [
                {"version": "v3", "model": "mockllm/cheap", "threshold": 0.9},
                {"version": "v3", "model": "mockllm/strong", "threshold": 0.8},
            ],
            {},
            "prefers the cascade mockllm/cheap → mockllm/strong → a person; judge_production "
            "runs one judge: run each stage on the answers the one before escalates, the first "
            "with -T prompt_version=v3 --model mockllm/cheap -T threshold=0.9",
        ),
        (
            [{"version": "v3", "model": "mockllm/cheap", "threshold": None}],
            {},
            "in the judge it prefers, mockllm/cheap → a person, the judge decides nothing alone",
        ),
        (
            [{"version": "v3", "model": "mockllm/cheap", "threshold": 0.9}],
            {"threshold": 0.95},
            "holds its judge to 0.9; give one of them",
        ),
        (
            [{"version": "v3", "model": "mockllm/cheap", "threshold": 0.9}],
            {"graded": "off"},
            "has no graded score (graded=off), so no confidence to hold to a threshold",
        ),
    ],
)
def test_a_decision_the_run_cannot_hold_to_is_one_line(
    period: tuple[list[Draft], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stages: list[dict[str, object]],
    options: dict[str, object],
    expected: str,
) -> None:
    _, path = period
    # Made outside an eval, as `inspect eval` would make it with no --model: whatever model an
    # earlier eval() in this process left active must not stand in for one.
    monkeypatch.setattr(deployed_judge, "active_model", lambda: None)
    decision = _selective(tmp_path / "decision.json", stages)
    with pytest.raises(InputError) as raised:
        judge_production(drafts=str(path), decision=str(decision), **options)  # type: ignore[arg-type]
    (line,) = raised.value.problems
    assert expected in line


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {"threshold": 0.9, "graded": "off"},
            "has no graded score (graded=off), so no confidence to hold to a threshold",
        ),
        (
            {"threshold": 0.9, "graded": "epochs"},
            "is graded by agreement over epochs (graded=epochs)",
        ),
        ({"threshold": 1.5, "graded": "logprobs"}, "must be a confidence between 0 and 1"),
    ],
)
def test_a_threshold_the_run_cannot_use_is_one_line(
    period: tuple[list[Draft], Path], options: dict[str, object], expected: str
) -> None:
    _, path = period
    with pytest.raises(InputError) as raised:
        judge_production(drafts=str(path), **options)  # type: ignore[arg-type]
    (line,) = raised.value.problems
    assert line.startswith(f"-T threshold={options['threshold']}: ") and expected in line, line
