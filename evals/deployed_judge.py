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

A run's confidence threshold (`docs/escalation.md`) is read here too, for both tasks, given as
a number (`-T threshold=0.9`) or as the decision's (`-T decision=`), and held to the run's
graded mode, which must give each sample a confidence (`scorers.escalation.check_threshold`):
the gold task's `run_threshold`, the production task's `production_threshold`.
"""

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from pydantic import TypeAdapter, ValidationError

from farejudge.core.decision_file import PANEL, CandidateName, StageThreshold
from farejudge.core.errors import InputError
from farejudge.core.inspect_internals import active_model
from farejudge.core.text_input import dotted, read_text, shown
from farejudge.evals.dataset import locate
from farejudge.scorers.escalation import OptionError, check_threshold
from farejudge.scorers.graded_option import GradedOption

NO_MODEL = "none/none"
"""Inspect's model when none was given and INSPECT_EVAL_MODEL is unset."""
DECISION_FLAG = "-T decision="
THRESHOLD_FLAG = "-T threshold="


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
    return read_preferred(locate(path), f"{DECISION_FLAG}{path}")


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


def active_model_name() -> str:
    """The model Inspect is creating the task for (`--model`, or INSPECT_EVAL_MODEL);
    `NO_MODEL` outside an eval."""
    current = active_model()
    return NO_MODEL if current is None else str(current)


def run_threshold(
    threshold: object, decision: object, graded: GradedOption, version: str
) -> float | None:
    """The gold task's threshold: the one this run holds each sample's verdict to, checked;
    None where neither option is given. The judge model is the one Inspect is evaluating as it
    makes the task (`inspect eval`, or `eval()` given the task's file or name). A task object
    made before `eval()` is given none, or, after an earlier `eval()` in the same process, that
    one's: its graded mode is then resolved sample by sample, a sample graded by epochs
    escalated."""
    if threshold is None and decision is None:
        return None
    if threshold is not None and decision is not None:
        raise InputError([f"{THRESHOLD_FLAG} and {DECISION_FLAG}: give one of them"])
    current = active_model()
    model = None if current is None else str(current)
    if decision is None:
        return held_threshold(threshold, THRESHOLD_FLAG, graded, version, model)
    if not isinstance(decision, str):
        raise InputError([f"{DECISION_FLAG}{decision!r}: give one decision.json"])
    found = load_decision(decision).threshold_for(version, model)
    return held_threshold(found, f"{DECISION_FLAG}{decision}: threshold", graded, version, model)


def production_threshold(
    given: object,
    deployed: DeployedJudge | None,
    graded: GradedOption,
    version: str,
    model: str | None,
) -> float | None:
    """The production task's threshold: `-T threshold=`, or the decision's for a selective
    pick (the decision names the judge either way), checked; None where neither gives one."""
    from_decision = None if deployed is None else deployed.threshold
    if given is None and from_decision is None:
        return None
    if given is not None and deployed is not None and from_decision is not None:
        raise InputError(
            [
                f"{THRESHOLD_FLAG}{given}: {DECISION_FLAG}{deployed.decision} holds its judge to "
                f"{from_decision:g}; give one of them"
            ]
        )
    judge = model or active_model_name()
    value, flag = given, THRESHOLD_FLAG
    if given is None and deployed is not None:
        value, flag = from_decision, f"{DECISION_FLAG}{deployed.decision}: threshold"
    return held_threshold(value, flag, graded, version, None if judge == NO_MODEL else judge)


def held_threshold(
    value: object, flag: str, graded: GradedOption, version: str, model: str | None
) -> float:
    """`value`, a threshold given with `flag`, checked for a run of prompt `version` on `model`
    (None: not known as the task is made) graded by `graded`; an InputError of one line naming
    the option otherwise."""
    candidate = f"{version} with {model}" if model else f"this {version} run"
    try:
        return check_threshold(value, candidate, graded.known_mode(model), flag)
    except OptionError as err:
        raise InputError([str(err)]) from None
