"""The task's confidence threshold (`docs/escalation.md`): given as a number (`-T threshold=0.9`)
or read from judge-compare's decision.json (`-T decision=PATH`: the threshold of the judge it
prefers, for this prompt version and judge model), and held to the run's graded mode, which must
give each sample a confidence (`scorers.escalation_options.check_threshold`).

decision.json is read as the production task reads it (`evals.deployed_judge.load_decision`):
the stages of the judge it prefers (`prefer`, the judge to deploy), each a version, a model and
a threshold, and nothing else; `core.decision_file` picks this run's stage or refuses.
"""

from farejudge.core.errors import InputError
from farejudge.core.inspect_internals import active_model
from farejudge.evals.deployed_judge import load_decision
from farejudge.scorers.escalation_options import OptionError, check_threshold
from farejudge.scorers.graded_option import GradedOption

DECISION_FLAG = "-T decision="


def run_threshold(
    threshold: object, decision: object, graded: GradedOption, version: str
) -> float | None:
    """The threshold this run holds each sample's verdict to, checked; None where neither
    option is given. The judge model is the one Inspect is evaluating as it makes the task
    (`inspect eval`, or `eval()` given the task's file or name). A task object made before
    `eval()` is given none, or, after an earlier `eval()` in the same process, that one's: its
    graded mode is then resolved sample by sample, a sample graded by epochs escalated."""
    if threshold is None and decision is None:
        return None
    if threshold is not None and decision is not None:
        raise InputError(["-T threshold= and -T decision=: give one of them"])
    current = active_model()
    model = None if current is None else str(current)
    if decision is None:
        return held_threshold(threshold, "-T threshold=", graded, version, model)
    if not isinstance(decision, str):
        raise InputError([f"{DECISION_FLAG}{decision!r}: give one decision.json"])
    found = load_decision(decision).threshold_for(version, model)
    return held_threshold(found, f"{DECISION_FLAG}{decision}: threshold", graded, version, model)


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
