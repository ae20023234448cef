"""Scripted judges on the contested set's own labels, and the annotators' figures beside them
(`farejudge.comparison.humans`): each judge's verdicts are given per case, so its figures are
known by construction."""

import pandas as pd

from farejudge.comparison.cases import per_case
from farejudge.comparison.humans.results import EPSILONS, HumanResults, human_results
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.core.sample_case import LoggedAnnotation
from farejudge.evals.dataset import CONTESTED, load_cases
from tests.support.frame_rows import row

CASES = load_cases(CONTESTED / "cases")
ANNOTATIONS = {
    c.id: [
        LoggedAnnotation.model_validate(a.model_dump(include=set(LoggedAnnotation.model_fields)))
        for a in c.annotations
    ]
    for c in CASES
}
GOLD = {c.id: int(not c.label.grounded) for c in CASES}
NAMES = ["agent-a", "agent-b", "agent-c"]
SAID = {
    c.id: {a.annotator: int(not a.grounded) for a in c.annotations if a.role == "annotator"}
    for c in CASES
}
FAILS = -1
"""A scripted verdict that is a judge failure."""


def results_of(
    judges: dict[str, dict[str, int]],
    annotations: dict[str, list[LoggedAnnotation]] | None = None,
) -> HumanResults:
    rows = [
        row(case, GOLD[case], max(said, 0), model=name, failure=int(said == FAILS))
        for name, verdicts in judges.items()
        for case, said in verdicts.items()
    ]
    # As a run's log reads an ungrounded verdict.
    for each in rows:
        if each["verdict"] == "ungrounded":
            each["verdict"] = "ungrounded (1 claim)"
    found = human_results(
        per_case(pd.DataFrame(rows)),
        [],
        ANNOTATIONS if annotations is None else annotations,
        EPSILONS["expert"],
        Resampling(resamples=200, seed=0),
    )
    assert found is not None
    return found


def majority(case: str) -> int:
    return int(sum(SAID[case].values()) >= 2)


JUDGES = {
    "copies-a": {c: SAID[c]["agent-a"] for c in SAID},
    "majority": {c: majority(c) for c in SAID},
    "gold": dict(GOLD),
    "grounded": dict.fromkeys(SAID, 0),
    "fails": dict.fromkeys(SAID, FAILS),
}
