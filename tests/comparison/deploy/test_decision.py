"""decision.json: its schema, undefined figures as null, and a deployment with no candidate."""

import json

import jsonschema

from farejudge.comparison.deploy.candidates import Deployment
from farejudge.comparison.deploy.decision import decision
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.deploy.sections import deploy_sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.core.decision_file import Decision
from tests.support.deploy_rows import case_rows, report_of


def test_decision_matches_its_schema_with_undefined_figures_as_null() -> None:
    report = report_of(case_rows("a", set(), seconds=0.2) + case_rows("b", {0, 2}, 0.001, 0.1))
    written = json.loads(decision(report.deployment).model_dump_json())
    jsonschema.validate(written, Decision.model_json_schema())
    a = next(c for c in written["frontier"] if c["model"] == "a")
    assert a["cost_per_1k"] == {"estimate": None, "low": None, "high": None}
    assert a["flip_rate"]["estimate"] is None
    assert written["cost_known"] is False
    assert written["summary"][0].startswith("Deploy v3 with a")


def test_with_no_case_scored_there_is_no_candidate_and_no_pick() -> None:
    empty = Deployment(
        quality="balanced_accuracy",
        constraints=Constraints(),
        target_recall=0.9,
        candidates=[],
        ranked=[],
        test=None,
        prefer_runner_up=False,
        preference=None,
        excluded_most=[],
        excluded_count=0,
        usable=0,
        resampling=Resampling(200, 0),
    )
    (section,) = deploy_sections(empty)
    assert section.lines[0] == "No candidate: no run has a scored case."
    assert section.tables == []
    assert decision(empty).pick is None
