"""The graded results on hand-made runs: cases without a score left out and counted with
why, epochs averaged, versions paired on identical content."""

import math

import pytest
from sklearn.metrics import roc_auc_score

from farejudge.comparison.graded.results import ALL_FAILED, NO_SCORE
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs
from tests.support.graded_rows import graded_rows


def test_cases_without_a_graded_score_are_left_out_and_counted_with_why() -> None:
    rows = graded_rows(
        "v1",
        changes={
            "c-00": {"p_ungrounded": math.nan, "graded_source": "none"},
            "c-01": {"p_ungrounded": math.nan, "graded_source": "none", "failure": 1.0},
        },
    )
    graded = build_report(runs(rows), Resampling(100)).graded
    assert graded is not None
    (s,) = graded.summaries
    assert (s.graded, s.ungraded, s.sources) == (18, {ALL_FAILED: 1, NO_SCORE: 1}, {"logprobs": 18})
    assert s.figures is not None
    kept = [r for r in rows if not math.isnan(float(r["p_ungrounded"]))]  # type: ignore[arg-type]
    auc = roc_auc_score([r["gold_ungrounded"] for r in kept], [r["p_ungrounded"] for r in kept])
    assert s.figures.auc.estimate == pytest.approx(auc)


def test_a_case_graded_over_epochs_is_the_mean_of_its_epochs() -> None:
    rows = [
        row("c-0", 1, 1, epoch=e, p_ungrounded=p, graded_source="epochs")
        for e, p in ((1, 1.0), (2, 0.0), (3, 1.0))
    ] + [row("c-1", 0, 0, epoch=e, p_ungrounded=0.0, graded_source="epochs") for e in (1, 2, 3)]
    graded = build_report(runs(rows), Resampling(50)).graded
    assert graded is not None
    (s,) = graded.summaries
    assert s.verdict_only == 0
    assert s.figures is not None
    assert s.figures.brier.estimate == pytest.approx(((1 - 2 / 3) ** 2 + 0) / 2)


def test_pairs_are_cases_with_identical_content_and_a_score_on_both_sides() -> None:
    rows = graded_rows("v1") + graded_rows(
        "v2",
        changes={
            "c-00": {"case_hash": "edited"},
            "c-01": {"p_ungrounded": math.nan, "graded_source": "none"},
        },
    )
    report = build_report(runs(rows), Resampling(100))
    assert report.graded is not None
    (c,) = report.graded.comparisons
    assert (c.before, c.after, c.paired, c.unpaired) == ("v1", "v2", 18, 1)
    # v2 separates the classes completely; v1 at random.
    assert c.delong.auc_after == 1.0 and c.delong.change.estimate > 0.3
    assert c.delong.p_value < 0.05 and c.brier.change.estimate < 0
