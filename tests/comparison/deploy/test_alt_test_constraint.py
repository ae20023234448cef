"""The annotators in the deploy decision: decision.json records the human ceiling and each
candidate's alternative annotator test, and --require-alt-test keeps only those that pass;
on the contested set's own labels, with scripted judges."""

import json

from farejudge.comparison.deploy.candidates import DeployOptions
from farejudge.comparison.deploy.decision import decision_json
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.core.sample_case import ANNOTATIONS_KEY
from tests.support.contested_judges import ANNOTATIONS, FAILS, GOLD, JUDGES
from tests.support.frame_rows import row, runs


def _report(require: bool, names: tuple[str, ...] = ("majority", "gold")) -> dict[str, object]:
    judges = {name: JUDGES[name] for name in names}
    rows = [
        {
            **row(case, GOLD[case], max(said, 0), model=name, failure=int(said == FAILS)),
            ANNOTATIONS_KEY: [a.model_dump() for a in ANNOTATIONS[case]],
        }
        for name, verdicts in judges.items()
        for case, said in verdicts.items()
    ]
    options = DeployOptions(constraints=Constraints(require_alt_test=require))
    report = build_report(runs(rows), Resampling(200), deploy=options)
    found: dict[str, object] = json.loads(decision_json(report.deployment))
    return found


def test_decision_json_records_the_ceiling_and_each_candidates_test() -> None:
    found = _report(require=False)
    ceiling = found["human_ceiling"]
    assert isinstance(ceiling, dict)
    assert (ceiling["cases"], ceiling["annotators"]) == (55, ["agent-a", "agent-b", "agent-c"])
    frontier = found["frontier"]
    assert isinstance(frontier, list)
    tests = {c["model"]: c["alt_test"] for c in frontier}
    assert tests["majority"]["passes"] and tests["majority"]["winning_rate"] == 1.0
    assert [a["annotator"] for a in tests["majority"]["annotators"]] == [
        "agent-a",
        "agent-b",
        "agent-c",
    ]
    assert "require_alt_test" not in found["constraints"]  # type: ignore[operator]


def test_require_alt_test_keeps_only_the_candidates_that_pass() -> None:
    # The annotators' majority passes; a judge that always says grounded does not.
    names = ("grounded", "majority")
    free, required = _report(False, names), _report(True, names)
    assert free["pick"] == {"version": "v1", "model": "majority"}
    assert required["pick"] == {"version": "v1", "model": "majority"}
    assert required["constraints"] == {**free["constraints"], "require_alt_test": True}  # type: ignore[dict-item]
    frontier = {c["model"]: c for c in required["frontier"]}  # type: ignore[attr-defined]
    assert frontier["grounded"]["failed_constraints"] == ["--require-alt-test"]
    assert frontier["majority"]["failed_constraints"] == []


def test_with_none_passing_there_is_no_pick_and_the_constraint_is_named() -> None:
    found = _report(True, ("grounded", "fails"))
    assert found["pick"] is None
    assert "--require-alt-test" in str(found["reason"])
