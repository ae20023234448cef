"""The production task: every draft of a period judged, verdicts recorded, no agreement; the
population hash in the log; shards; decision.json's judge; outages apart from judge failures."""

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from inspect_ai.viewer import TaskSamplesView

from farejudge.audit.inputs.judged import read_judged
from farejudge.core.drafts import Draft
from farejudge.core.errors import InputError
from farejudge.core.population import population_hash
from farejudge.evals import deployed_judge
from farejudge.evals.judge_production import judge_production
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.render import judge_messages
from farejudge.scorers.viewer_columns import PRODUCTION_SCORER, production_viewer
from farejudge.testing.production_runs import judge_says, write_drafts
from farejudge.testing.scripted_judge import mock_output
from tests.support.audit_runs import index_of, judge_period, write_decision
from tests.support.json_server import serving
from tests.support.standins.synthetic_judge import synthetic_judge_server

COUNT = 24


@pytest.fixture(scope="module")
def period(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Draft], Path]:
    folder = tmp_path_factory.mktemp("period")
    drafts = folder / "drafts.jsonl"
    return write_drafts(drafts, COUNT), drafts


def _scores(log: EvalLog) -> dict[str, dict[str, object]]:
    assert log.samples is not None
    return {
        str(s.id): {"score": s.scores[PRODUCTION_SCORER], "error": s.error}  # type: ignore[index]
        for s in log.samples
    }


@pytest.mark.slow
def test_every_draft_is_judged_and_the_log_names_its_population(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    drafts, path = period
    log = judge_period(path, tmp_path)
    assert log.status == "success"
    metadata = log.eval.metadata or {}
    assert metadata["population"] == COUNT
    assert metadata["population_sha256"] == population_hash(
        {d.id: d.content_sha256 for d in drafts}
    )
    assert sum(metadata["categories"].values()) == COUNT
    numbers = index_of(drafts)
    assert log.samples is not None and len(log.samples) == COUNT
    # The judge saw each draft as the gold task renders a case; the input is the question.
    version = load_prompt_version("v3")
    by_id = {d.id: d for d in drafts}
    for sample in log.samples:
        draft = by_id[str(sample.id)]
        assert sample.input == draft.question
        shown = [m.text for m in sample.messages[:2]]
        assert shown == [m.text for m in judge_messages(draft, version)]
    for sample in log.samples:
        score = sample.scores[PRODUCTION_SCORER]  # type: ignore[index]
        value = score.value
        assert isinstance(value, dict)
        said = judge_says(numbers[str(sample.id)])
        assert value["verdict"] == ("judge failure" if said == "failure" else said)
        assert value["judge_failure"] == (said == "failure")
        if said == "failure":
            assert math.isnan(value["judge_ungrounded"]) and math.isnan(value["p_ungrounded"])
            assert score.answer == "judge failure"
            assert score.explanation and "the failure rule" in score.explanation
        else:
            assert value["judge_ungrounded"] == (said == "ungrounded")
            # Off the gguf/ provider the graded score is the verdict itself (-T graded=auto).
            assert value["p_ungrounded"] == value["judge_ungrounded"]
            assert score.explanation and score.explanation.startswith(f"The judge says {said}")
        assert value["category"] == (sample.metadata or {})["category"]
        assert "agree" not in value and "gold_ungrounded" not in value
    assert log.results is not None
    metrics = log.results.scores[0].metrics
    answered = [judge_says(i) for i in range(COUNT) if judge_says(i) != "failure"]
    assert metrics["flagged_rate"].value == pytest.approx(
        answered.count("ungrounded") / len(answered)
    )
    assert metrics["judge_failure_rate"].value == pytest.approx((COUNT - len(answered)) / COUNT)
    assert not [name for name in metrics if "accuracy" in name or "kappa" in name]
    # The viewer's columns name keys the score has.
    view = production_viewer(escalation=False).task_samples_view
    assert isinstance(view, TaskSamplesView) and view.columns is not None
    keys = {c.id.split("__")[-1] for c in view.columns if PRODUCTION_SCORER in c.id}
    first = log.samples[0].scores[PRODUCTION_SCORER].value  # type: ignore[index]
    assert isinstance(first, dict)
    assert keys <= set(first), keys - set(first)


@pytest.mark.slow
def test_shards_split_the_drafts_and_each_records_the_whole_population(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    drafts, path = period
    logs = [judge_period(path, tmp_path, shard=f"{i}/3") for i in range(3)]
    held = [{str(s.id) for s in log.samples or []} for log in logs]
    assert sum(len(ids) for ids in held) == COUNT
    assert set().union(*held) == {d.id for d in drafts}
    assert all(ids for ids in held), "each of three shards of 24 drafts holds some"
    hashes = {(log.eval.metadata or {})["population_sha256"] for log in logs}
    assert len(hashes) == 1
    assert [(log.eval.metadata or {})["shard"] for log in logs] == ["0/3", "1/3", "2/3"]
    # The audit joins the shards into the period.
    judged = read_judged([str(tmp_path)])
    assert sorted(judged.ids.tolist()) == sorted(d.id for d in drafts)
    assert judged.population == COUNT


@pytest.mark.slow
def test_an_outage_errors_the_sample_and_is_never_a_judge_failure(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    drafts, path = period
    log = judge_period(path, tmp_path, outage={3})
    errored = [s for s in log.samples or [] if s.error is not None]
    assert [str(s.id) for s in errored] == [drafts[3].id]
    assert PRODUCTION_SCORER not in (errored[0].scores or {})
    judged = read_judged([str(tmp_path)])
    where = judged.positions([drafts[3].id])[drafts[3].id]
    assert judged.errored[where] and not judged.failed[where]
    assert int(judged.failed.sum()) == sum(judge_says(i) == "failure" for i in range(COUNT))


def _task_model(task: Task, model: str, log_dir: Path) -> str:
    (log,) = eval(
        task,
        model=get_model(model, custom_outputs=_outputs()),
        log_dir=str(log_dir),
        display="none",
    )
    return log.eval.model


def _outputs() -> list[object]:
    return [mock_output('{"grounded": true, "unsupported_claims": [], "reasoning": "x"}')] * 3


def test_inspect_runs_the_task_s_own_model_over_the_eval_s(tmp_path: Path) -> None:
    """Inspect's behaviour the decision option rests on: `Task(model=...)` wins, silently."""
    task = Task(
        dataset=[Sample(input="hi", target="")],
        model=get_model("mockllm/task", custom_outputs=_outputs()),
    )
    assert _task_model(task, "mockllm/eval", tmp_path) == "mockllm/task"


@pytest.mark.slow
@pytest.mark.parametrize("default", [None, "mockllm/default"])
def test_decision_json_sets_the_version_and_the_model(
    period: tuple[list[Draft], Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    default: str | None,
) -> None:
    """With no model given, or only INSPECT_EVAL_MODEL's default, the run's judge is the one
    decision.json prefers: here a stand-in on loopback, found through its base URL."""
    _, path = period
    # Made outside an eval: whatever model an earlier eval() in this process left active must
    # not stand in for the run's.
    monkeypatch.setattr(deployed_judge, "active_model", lambda: None)
    decision = tmp_path / "decision.json"
    # A name of its own per run: Inspect keeps a model by its name, its base URL as it was.
    model = f"openai-api/standin/deployed-{len(str(default))}"
    write_decision(decision, model=model)
    if default is None:
        monkeypatch.delenv("INSPECT_EVAL_MODEL", raising=False)
    else:
        monkeypatch.setenv("INSPECT_EVAL_MODEL", default)
    handler = synthetic_judge_server()
    with serving(handler) as url:
        monkeypatch.setenv("STANDIN_BASE_URL", url)
        monkeypatch.setenv("STANDIN_API_KEY", "none")
        (log,) = eval(
            judge_production(drafts=str(path), decision=str(decision)),
            log_dir=str(tmp_path / "logs"),
            display="none",
            limit=2,
        )
    assert log.status == "success", log.error
    assert log.eval.model == model
    assert len(handler.requests) == 2
    metadata = log.eval.metadata or {}
    assert metadata["prompt_version"] == "v3"
    assert metadata["decision"] == {
        "file": str(decision),
        "version": "v3",
        "model": model,
    }


def test_a_model_that_contradicts_the_decision_is_one_line(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    _, path = period
    decision = tmp_path / "decision.json"
    write_decision(decision, model="mockllm/deployed")
    with pytest.raises(InputError) as raised:
        # The task function, not a task: Inspect creates it with the eval's model active.
        eval(
            judge_production,
            task_args={"drafts": str(path), "decision": str(decision)},
            model=get_model("mockllm/other", custom_outputs=_outputs()),
            log_dir=str(tmp_path),
            display="none",
        )
    assert raised.value.problems == [
        f"--model mockllm/other: -T decision={decision} prefers mockllm/deployed; leave "
        "--model out (the decision sets it) or give --model mockllm/deployed"
    ]


@pytest.mark.parametrize(
    ("prefer", "expected"),
    [
        (None, "prefers no judge"),
        ({"version": "v3", "model": "panel (a, b, c)"}, "judge_production runs one judge"),
    ],
)
def test_a_decision_with_no_single_judge_is_one_line(
    period: tuple[list[Draft], Path], tmp_path: Path, prefer: object, expected: str
) -> None:
    _, path = period
    decision = tmp_path / "decision.json"
    write_decision(decision)
    record = json.loads(decision.read_text(encoding="utf-8"))
    decision.write_text(json.dumps({**record, "prefer": prefer}), encoding="utf-8")
    with pytest.raises(InputError) as raised:
        judge_production(drafts=str(path), decision=str(decision))
    (line,) = raised.value.problems
    assert line.startswith(f"{decision}: ") and expected in line


def test_a_prompt_version_that_contradicts_the_decision_is_one_line(
    period: tuple[list[Draft], Path], tmp_path: Path
) -> None:
    _, path = period
    decision = tmp_path / "decision.json"
    write_decision(decision)
    with pytest.raises(InputError) as raised:
        judge_production(drafts=str(path), decision=str(decision), prompt_version="v1")
    assert raised.value.problems == [
        f"-T prompt_version=v1: -T decision={decision} prefers v3; give one of them"
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({}, ["-T drafts=PATH: give the period's drafts file (judge-intake's output)"]),
        ({"drafts": "nowhere.jsonl"}, ["-T drafts=nowhere.jsonl: no such drafts file"]),
        ({"dataset": "x"}, ["-T dataset: not an option of judge_production"]),
        ({"drafts": "x.jsonl", "shard": "5/2"}, ["-T shard='5/2': give i/N with 0 <= i < N"]),
    ],
)
def test_bad_options_are_one_line_each(args: dict[str, Any], expected: list[str]) -> None:
    with pytest.raises(InputError) as raised:
        judge_production(**args)
    for line, start in zip(raised.value.problems, expected, strict=False):
        assert line.startswith(start)


def test_a_bad_draft_is_named_by_file_and_line(tmp_path: Path) -> None:
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, 3)
    lines = drafts.read_text(encoding="utf-8").splitlines()
    lines[1] = lines[1].replace('"answer":"', '"answer":"edited ')
    drafts.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        judge_production(drafts=str(drafts))
    (line,) = raised.value.problems
    assert ":2: " in line and "content_sha256" in line
