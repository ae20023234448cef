"""audit.json's figures: a share's interval within [0, 1], NaN as null."""

import math

import pytest

from farejudge.audit.record.schema import figure, interval
from farejudge.comparison.stats.intervals import Interval


@pytest.mark.parametrize(
    ("given", "written"),
    [
        # A category's few labels: the normal interval reaches past 0 and past 1.
        (Interval(0.069, -0.264, 0.401), (0.069, 0.0, 0.401)),
        (Interval(0.667, 0.119, 1.214), (0.667, 0.119, 1.0)),
        # A PPI estimate can itself fall below 0 where the judge flags nothing.
        (Interval(-0.01, -0.03, 0.01), (0.0, 0.0, 0.01)),
        (Interval(0.2, 0.15, 0.25), (0.2, 0.15, 0.25)),
    ],
)
def test_a_share_is_written_within_0_and_1(
    given: Interval, written: tuple[float, float, float]
) -> None:
    found = figure(given)
    assert (found.estimate, found.low, found.high) == pytest.approx(written)


def test_nan_is_written_as_null_and_read_back_as_nan() -> None:
    found = figure(Interval(math.nan, math.nan, math.nan))
    assert (found.estimate, found.low, found.high) == (None, None, None)
    back = interval(found)
    assert math.isnan(back.estimate) and math.isnan(back.low) and math.isnan(back.high)
