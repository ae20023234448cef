"""decision.json records a panel's effective number of judges, and only a panel's."""

import json

import pytest

from farejudge.comparison.deploy.decision import decision_json
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs

# Each member wrong on half of eight grounded cases, each pair on a quarter together, no case
# all three: uncorrelated errors, and no case a unanimous panel doubts.
WRONG = {"a": {0, 1, 2, 3}, "b": {0, 1, 4, 5}, "c": {2, 3, 4, 5}}


def test_a_panel_of_members_with_uncorrelated_errors_is_worth_three_in_decision_json() -> None:
    rows = [
        row(f"e-{k}", 0, int(k in wrong), version="v3", model=model)
        for model, wrong in WRONG.items()
        for k in range(8)
    ]
    found = json.loads(decision_json(build_report(runs(rows), Resampling(200)).deployment))
    worth = {c["model"]: c.get("effective_judges") for c in found["frontier"]}
    assert worth["panel (a, b, c)"]["estimate"] == pytest.approx(3.0)
    assert worth["a"] is None and worth["b"] is None
