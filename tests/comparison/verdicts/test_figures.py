"""Each run's verdict figures on small tables worked out by hand: kappa and accuracy, judge
failures counted apart, the epochs of a case as shares of it."""

import pytest

from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.stats.intervals import wilson
from tests.support.frame_rows import row, runs


def test_kappa_and_accuracy_on_a_hand_table() -> None:
    # TP 20, FN 5, FP 10, TN 15: accuracy 35/50 = 0.7; chance agreement
    # 0.5 * 0.6 + 0.5 * 0.4 = 0.5, so kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4.
    cells = [(1, 1)] * 20 + [(1, 0)] * 5 + [(0, 1)] * 10 + [(0, 0)] * 15
    rows = [row(f"c-{i}", g, j) for i, (g, j) in enumerate(cells)]
    (s,) = build_report(runs(rows), Resampling(500, 0)).verdicts.summaries
    assert s.accuracy.estimate == pytest.approx(0.7)
    assert (s.accuracy.low, s.accuracy.high) == pytest.approx(
        (wilson(35, 50).low, wilson(35, 50).high)
    )
    assert s.kappa.estimate == pytest.approx(0.4)
    assert s.kappa.low < 0.4 < s.kappa.high
    assert s.precision.estimate == pytest.approx(20 / 30)
    assert s.recall.estimate == pytest.approx(20 / 25)
    assert s.balanced_accuracy.estimate == pytest.approx((0.8 + 0.6) / 2)
    assert s.f1.estimate == pytest.approx(40 / 55)


def test_a_judge_failure_is_wrong_and_counted_apart() -> None:
    rows = [row("a-1", 1, 1), row("a-2", 0, 0), row("a-3", 1, 0, failure=1)]
    report = build_report(runs(rows), Resampling(100, 0))
    (s,) = report.verdicts.summaries
    assert s.failures == 1
    assert s.accuracy.estimate == pytest.approx(2 / 3)
    assert s.failure_rate.estimate == pytest.approx(1 / 3)
    # The confusion-table figures are over answered cases only.
    assert s.kappa.estimate == 1.0
    (c,) = report.verdicts.confusions
    assert (c.tp, c.fn, c.fp, c.tn, c.failed_ungrounded, c.failed_grounded) == (1, 0, 0, 1, 1, 0)


def test_epochs_are_shares_of_one_case() -> None:
    # b-1 agrees in 2 of 3 epochs (right, unstable); b-2 in 1 of 3 (wrong, unstable).
    rows = [row("b-1", 1, j, epoch=e) for e, j in enumerate([1, 1, 0], start=1)] + [
        row("b-2", 0, j, epoch=e) for e, j in enumerate([1, 0, 1], start=1)
    ]
    report = build_report(runs(rows), Resampling(100, 0))
    (s,) = report.verdicts.summaries
    assert (s.cases, s.case_epochs) == (2, 6)
    assert s.accuracy.estimate == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert {c.case: c.verdicts for c in report.verdicts.unstable_cases} == {
        "b-1": {"ungrounded": 2, "grounded": 1},
        "b-2": {"ungrounded": 2, "grounded": 1},
    }
    (stab,) = report.verdicts.stability
    assert stab.unstable.estimate == 1.0
    assert stab.consistency.estimate == pytest.approx(2 / 3)
