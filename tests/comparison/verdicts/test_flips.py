"""Fixed and broken cases between versions, with exact McNemar, on hand-made runs."""

import pytest

from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import mcnemar_exact
from tests.support.frame_rows import row, runs


def test_flips_between_versions_with_mcnemar() -> None:
    # v1 → v2: d-1 and d-2 fixed, d-3 broken, d-4 right on both.
    v1 = [row("d-1", 1, 0), row("d-2", 0, 1), row("d-3", 1, 1), row("d-4", 0, 0)]
    v2 = [
        row("d-1", 1, 1, "v2"),
        row("d-2", 0, 0, "v2"),
        row("d-3", 1, 0, "v2"),
        row("d-4", 0, 0, "v2"),
    ]
    (t,) = build_report(runs(v1 + v2), Resampling(200, 0)).verdicts.transitions
    assert [f.case for f in t.fixed] == ["d-1", "d-2"]
    assert [(f.case, f.before, f.after) for f in t.broken] == [("d-3", "ungrounded", "grounded")]
    assert t.p_value == pytest.approx(mcnemar_exact(2, 1)) and t.p_value == 1.0
    assert t.accuracy_change.estimate == pytest.approx(0.25)
