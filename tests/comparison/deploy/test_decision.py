"""decision.json: its schema, undefined figures as null, and a deployment with no candidate."""

import json
import math

import jsonschema

from farejudge.comparison.deploy.candidates import Deployment, DeployOptions
from farejudge.comparison.deploy.decision import Decision, decision
from farejudge.comparison.deploy.frontier import (
    Quality,
)
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.deploy.sections import deploy_sections
from farejudge.comparison.report.build import Report, build_report
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs


def case_rows(
    model: str,
    wrong: set[int],
    cost: float = math.nan,
    seconds: float = math.nan,
    n: int = 20,
    failed: frozenset[int] = frozenset(),
) -> list[dict[str, object]]:
    """Cases x-0..x-(n-1), the even ones gold ungrounded; the judge wrong on `wrong`."""
    return [
        row(
            f"x-{k}",
            k % 2 == 0,
            (k % 2 == 0) != (k in wrong),
            version="v3",
            model=model,
            failure=int(k in failed),
            cost=cost,
            working_time=seconds + k / 1000,
        )
        for k in range(n)
    ]


def report_of(
    rows: list[dict[str, object]], quality: Quality = "balanced_accuracy", **bounds: float
) -> Report:
    options = DeployOptions(quality=quality, constraints=Constraints(**bounds))
    return build_report(runs(rows), Resampling(200), deploy=options)


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
