"""A panel's effective number of judges in the panel and its section: three members whose
errors are uncorrelated by construction are worth three, three that err together one."""

import pandas as pd
import pytest

from farejudge.comparison.cases import per_case
from farejudge.comparison.panel.majority import Panel, build_panel
from farejudge.comparison.panel.sections import effective_line
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row

# Members' errors on eight grounded cases: each errs on half, each pair on a quarter together.
APART = {"a": {0, 1, 2, 3}, "b": {0, 1, 4, 5}, "c": {0, 2, 4, 6}}
TOGETHER = {model: {0, 1, 2} for model in "abc"}


def _panel(errors: dict[str, set[int]]) -> Panel:
    rows = [
        row(f"e-{k}", 0, int(k in wrong), version="v3", model=model)
        for model, wrong in errors.items()
        for k in range(8)
    ]
    return build_panel(per_case(pd.DataFrame(rows)), "v3", list(errors), True, Resampling(200))


def test_members_with_uncorrelated_errors_are_worth_one_each() -> None:
    found = _panel(APART).effective
    assert found is not None
    assert found.mean_correlation == pytest.approx(0.0, abs=1e-12)
    assert found.effective.estimate == pytest.approx(3.0)
    assert not found.mostly_one_judge
    assert "worth 3.00" in effective_line(_panel(APART))


def test_members_that_err_together_are_mostly_one_judge() -> None:
    panel = _panel(TOGETHER)
    assert panel.effective is not None
    assert panel.effective.effective.estimate == pytest.approx(1.0)
    assert effective_line(panel).endswith("below 1.5, the panel is mostly one judge.")
