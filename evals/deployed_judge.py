"""The judge to deploy, as `judge-compare`'s decision.json names it: a prompt version and a
judge model (its `prefer`), and for a selective pick (the judge, then a person) the confidence
threshold it decides alone at, for the production task's `-T decision=`.

Only `prefer` (and `reason`) is read here, for both tasks (`load_decision`; the gold task
takes its preferred judge's threshold, `evals/escalation_threshold.py`); the schema is
`farejudge.comparison.deploy.decision.Decision`, above this stage (the audit reads the rest).

Inspect runs a task on the model the task names over the eval's model (`Task(model=...)`
wins over `--model`, silently). So the decision's model is the task's, and a run's model
that contradicts it is an error, not overridden: `--model`, or an `INSPECT_EVAL_MODEL` the
command line did not take as its default. A model equal to `INSPECT_EVAL_MODEL` is that
default (the repository's `.env` sets one for the main job) and gives way to the decision.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from farejudge.core.errors import InputError
from farejudge.core.text_input import dotted, read_text, shown
from farejudge.evals.dataset import locate

PANEL = "panel ("
"""How decision.json names a panel's model: `panel (a, b, c)`."""
NO_MODEL = "none/none"
"""Inspect's model when none was given and INSPECT_EVAL_MODEL is unset."""


class _Read(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Stage(_Read):
    """A judge of a selective pick, and the confidence it decides alone at (None: nothing)."""

    version: str
    model: str
    threshold: float | None


class PreferredJudge(_Read):
    version: str
    model: str
    stages: list[Stage] | None = None
    """A selective pick's judges, each with the confidence it decides alone at."""


class DecisionFile(_Read):
    """What the tasks read of a decision.json: the judge it prefers, or why none."""

    prefer: PreferredJudge | None
    reason: str | None = None


def load_decision(path: str) -> DecisionFile:
    """The decision.json at `path` (`-T decision=`), found as a dataset is (relative to the
    folder the command was typed in, though Inspect imports a task file from its own), or an
    InputError of one line naming the option: it cannot be read, is not JSON, or not a
    decision."""
    given = f"-T decision={path}"
    text = read_text(locate(path), given)
    try:
        return DecisionFile.model_validate(json.loads(text))
    except json.JSONDecodeError as err:
        raise InputError([f"{given}: not JSON (line {err.lineno}: {err.msg})"]) from None
    except ValidationError as err:
        first = err.errors()[0]
        raise InputError(
            [f"{given}: not a judge-compare decision ({dotted(first['loc'])}: {first['msg']})"]
        ) from None


@dataclass(frozen=True)
class DeployedJudge:
    """The judge a decision.json prefers."""

    version: str
    model: str
    decision: str
    """The decision file, as given."""
    threshold: float | None = None
    """For a selective pick (a judge, then a person): the confidence it decides alone at."""


def read_decision(path: str) -> DeployedJudge:
    """The judge `path` (a decision.json) prefers, or an InputError of one line naming it."""
    found = load_decision(path)
    name = shown(locate(path))
    if found.prefer is None:
        why = f": {found.reason}" if found.reason else ""
        raise InputError([f"{name}: prefers no judge{why}"])
    if found.prefer.model.startswith(PANEL):
        raise InputError(
            [
                f"{name}: prefers the panel {found.prefer.model}; judge_production runs "
                "one judge: give -T prompt_version and --model instead of -T decision"
            ]
        )
    if found.prefer.stages:
        return _selective(found.prefer, name, str(Path(path)))
    return DeployedJudge(found.prefer.version, found.prefer.model, str(Path(path)))


def _selective(prefer: PreferredJudge, name: str, path: str) -> DeployedJudge:
    """The judge of a selective pick, with its threshold: one judge, then a person."""
    stages = prefer.stages or []
    if len(stages) > 1:
        first = stages[0]
        raise InputError(
            [
                f"{name}: prefers the cascade {prefer.model}; judge_production runs one judge: "
                f"run each stage on the answers the one before escalates, the first with -T "
                f"prompt_version={first.version} --model {first.model} -T "
                f"threshold={first.threshold}"
            ]
        )
    (stage,) = stages
    if stage.threshold is None:
        raise InputError(
            [f"{name}: in the judge it prefers, {prefer.model}, the judge decides nothing alone"]
        )
    return DeployedJudge(stage.version, stage.model, path, stage.threshold)


def check_run_model(judge: DeployedJudge, active: str) -> None:
    """Raise an InputError when the run's model (`active`, the model Inspect creates the task
    for) contradicts the decision's: it is neither that model, nor none, nor the
    INSPECT_EVAL_MODEL default."""
    default = os.environ.get("INSPECT_EVAL_MODEL", "").split(",")[0].strip()
    if active in (judge.model, NO_MODEL, default):
        return
    raise InputError(
        [
            f"--model {active}: -T decision={judge.decision} prefers {judge.model}; leave "
            f"--model out (the decision sets it) or give --model {judge.model}"
        ]
    )
