"""The judge to deploy, as `judge-compare`'s decision.json names it: a prompt version and a
judge model (its `prefer`), and for a selective pick (the judge, then a person) the confidence
threshold it decides alone at, for the production task's `-T decision=`.

Only `prefer` (and `reason`) is read here, with the types of decision.json's one schema
(`farejudge.core.decision_file`), for both tasks (`load_decision`); the keys a task does not
read are left aside, so a decision of a newer judge-compare still runs. What a task cannot run
is refused here, in one line naming the file: for the production task no judge, a panel, a
cascade or a judge that decides nothing alone (`Preferred.judge`); for the gold task a judge
with no threshold for the run's version and model (`Preferred.threshold_for`).

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
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from farejudge.core.decision_file import PANEL, CandidateName, StageThreshold
from farejudge.core.errors import InputError
from farejudge.core.text_input import dotted, read_text, shown
from farejudge.evals.dataset import locate

NO_MODEL = "none/none"
"""Inspect's model when none was given and INSPECT_EVAL_MODEL is unset."""


_T = TypeVar("_T")
_PREFER: TypeAdapter[CandidateName | None] = TypeAdapter(CandidateName | None)
_REASON: TypeAdapter[str | None] = TypeAdapter(str | None)


def _name(version: str, model: str) -> str:
    return f"{version} with {model}"


@dataclass(frozen=True)
class Preferred:
    """The judge a decision.json prefers, as a task reads it: `prefer` and `reason`."""

    prefer: CandidateName | None
    reason: str | None
    given: str
    """The file as the message names it (`-T decision=PATH`, or the path itself)."""

    def judge(self) -> tuple[str, str, float | None]:
        """The one judge the production task runs: its version, its model and, for a
        selective pick (a judge, then a person), the confidence it decides alone at; an
        InputError of one line where the decision prefers no judge, a panel or a cascade."""
        name, prefer = self.given, self.prefer
        if prefer is None:
            why = f": {self.reason}" if self.reason else ""
            raise InputError([f"{name}: prefers no judge{why}"])
        if prefer.model.startswith(PANEL):
            raise InputError(
                [
                    f"{name}: prefers the panel {prefer.model}; judge_production runs "
                    "one judge: give -T prompt_version and --model instead of -T decision"
                ]
            )
        if not prefer.stages:
            return prefer.version, prefer.model, None
        if len(prefer.stages) > 1:
            first = prefer.stages[0]
            raise InputError(
                [
                    f"{name}: prefers the cascade {prefer.model}; judge_production runs one "
                    f"judge: run each stage on the answers the one before escalates, the first "
                    f"with -T prompt_version={first.version} --model {first.model} -T "
                    f"threshold={first.threshold}"
                ]
            )
        (stage,) = prefer.stages
        if stage.threshold is None:
            raise InputError(
                [
                    f"{name}: in the judge it prefers, {prefer.model}, the judge decides "
                    "nothing alone"
                ]
            )
        return stage.version, stage.model, stage.threshold

    def threshold_for(self, version: str, model: str | None) -> float:
        """The threshold the preferred judge holds this version and model's verdicts to (its
        stage of a selective pick, a cascade's included); an InputError of one line where it
        has none."""
        given, prefer = self.given, self.prefer
        if prefer is None:
            raise InputError([f"{given}: it prefers no judge ({self.reason or 'no reason given'})"])
        picked = _name(prefer.version, prefer.model)
        if not prefer.stages:
            raise InputError(
                [
                    f"{given}: the judge it prefers, {picked}, decides every answer alone, with "
                    "no threshold (judge-compare --alpha or --min-agreement calibrates one)"
                ]
            )
        if model is None:
            raise InputError(
                [
                    f"{given}: the judge model is not known as the task is made, so no stage of "
                    f"the judge it prefers can be chosen; give the threshold itself "
                    f"(-T threshold=)"
                ]
            )
        stages = [s for s in prefer.stages if (s.version, s.model) == (version, model)]
        if not stages:
            listed = ", ".join(_name(s.version, s.model) for s in prefer.stages)
            raise InputError(
                [
                    f"{given}: the judge it prefers, {picked}, has no stage for "
                    f"{_name(version, model)} ({listed})"
                ]
            )
        threshold = stages[0].threshold
        if threshold is None:
            raise InputError(
                [
                    f"{given}: in the judge it prefers, {picked}, {_name(version, model)} "
                    "decides nothing alone: no threshold met the guarantee"
                ]
            )
        return threshold


def _read_keys(prefer: object) -> object:
    """`prefer` with only the keys a task reads (its name and stages), as a newer
    judge-compare may write more."""
    if not isinstance(prefer, dict):
        return prefer
    kept = {k: v for k, v in prefer.items() if k in CandidateName.model_fields}
    stages = kept.get("stages")
    if isinstance(stages, list):
        fields = StageThreshold.model_fields
        kept["stages"] = [
            {k: v for k, v in s.items() if k in fields} if isinstance(s, dict) else s
            for s in stages
        ]
    return kept


def _key(data: dict[str, object], key: str, adapter: TypeAdapter[_T], given: str) -> _T:
    try:
        return adapter.validate_python(data.get(key))
    except ValidationError as err:
        first = err.errors()[0]
        where = dotted((key, *first["loc"]))
        raise InputError(
            [f"{given}: not a judge-compare decision ({where}: {first['msg']})"]
        ) from None


def read_preferred(path: Path, given: str) -> Preferred:
    """What a task reads of the decision.json at `path` (`given`: the option naming it), or an
    InputError of one line naming the option: it cannot be read, is not JSON, or not a
    decision."""
    text = read_text(path, given)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError([f"{given}: not JSON (line {err.lineno}: {err.msg})"]) from None
    if not isinstance(data, dict):
        raise InputError([f"{given}: not a judge-compare decision (not an object)"])
    if "prefer" not in data:
        raise InputError([f"{given}: not a judge-compare decision (prefer: Field required)"])
    prefer = _key({"prefer": _read_keys(data["prefer"])}, "prefer", _PREFER, given)
    return Preferred(prefer, _key(data, "reason", _REASON, given), given)


def load_decision(path: str) -> Preferred:
    """The judge the decision.json at `path` prefers (`-T decision=`), found as a dataset is
    (relative to the folder the command was typed in, though Inspect imports a task file from
    its own), or an InputError of one line naming the option."""
    return read_preferred(locate(path), f"-T decision={path}")


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
    named = Preferred(found.prefer, found.reason, shown(locate(path)))
    version, model, threshold = named.judge()
    return DeployedJudge(version, model, str(Path(path)), threshold)


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
