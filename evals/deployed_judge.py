"""The judge to deploy, as `judge-compare`'s decision.json names it: a prompt version and a
judge model (its `prefer`), and for a selective pick (the judge, then a person) the confidence
threshold it decides alone at, for the production task's `-T decision=`.

Only `prefer` (and `reason`) is read here, for both tasks (`load_decision`; the gold task
takes its preferred judge's threshold, `evals/escalation_threshold.py`), through decision.json's
one schema and its one reading of `prefer`, `farejudge.core.decision_file`.

Inspect runs a task on the model the task names over the eval's model (`Task(model=...)`
wins over `--model`, silently). So the decision's model is the task's, and a run's model
that contradicts it is an error, not overridden: `--model`, or an `INSPECT_EVAL_MODEL` the
command line did not take as its default. A model equal to `INSPECT_EVAL_MODEL` is that
default (the repository's `.env` sets one for the main job) and gives way to the decision.
"""

import os
from dataclasses import dataclass
from pathlib import Path

from farejudge.core.decision_file import Preferred, read_preferred
from farejudge.core.errors import InputError
from farejudge.core.text_input import shown
from farejudge.evals.dataset import locate

NO_MODEL = "none/none"
"""Inspect's model when none was given and INSPECT_EVAL_MODEL is unset."""


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
