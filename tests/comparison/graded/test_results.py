"""The graded results on hand-made runs: cases without a score left out and counted with
why, epochs averaged, versions paired on identical content."""

import math
import zlib
from collections.abc import Mapping

import pytest
from sklearn.metrics import roc_auc_score

from farejudge.comparison.graded.results import ALL_FAILED, NO_SCORE
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs

GOLD = [1, 0] * 10
"""Twenty cases, every other one ungrounded."""


def _score(version: str, case: int, gold: int) -> float:
    """v1 ranks the cases at random; v2 puts every ungrounded one above every grounded one."""
    noise = zlib.crc32(f"{version}/{case}".encode()) % 100 / 100
    return 0.5 + 0.4 * noise if version == "v2" and gold else 0.4 * noise + 0.3 * (version == "v1")


def _rows(
    version: str, wrong: int = 0, changes: Mapping[str, Mapping[str, object]] | None = None
) -> list[dict[str, object]]:
    """Every case judged right but the first `wrong` ones, each with its graded score; `changes`
    overrides columns of named cases."""
    rows = []
    for i, gold in enumerate(GOLD):
        judged = 1 - gold if i < wrong else gold
        found = row(
            f"c-{i:02}",
            gold,
            judged,
            version=version,
            p_ungrounded=_score(version, i, gold),
            graded_source="logprobs",
        )
        rows.append({**found, **(changes or {}).get(str(found["case"]), {})})
    return rows


def test_cases_without_a_graded_score_are_left_out_and_counted_with_why() -> None:
    rows = _rows(
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
    rows = _rows("v1") + _rows(
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
