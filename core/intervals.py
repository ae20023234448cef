"""An estimate with its interval, and the percentile interval of a figure's resamples.

One type for every interval the project reports: the comparison's, the audit's and the
annotators' figures (`farejudge.raters`) alike, so the report formats each the same way.
"""

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray


@dataclass(frozen=True)
class Interval:
    """An estimate and its interval; all NaN where the figure is undefined (no trials)."""

    estimate: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    @classmethod
    def undefined(cls) -> "Interval":
        return cls(math.nan, math.nan, math.nan)


def percentile_interval(
    estimate: float, values: NDArray[np.float64], level: float = 0.95
) -> Interval:
    """The percentile interval of a figure's resampled `values` around its `estimate`.

    Resamples where the figure is undefined (NaN, e.g. no ungrounded case drawn) are left
    out; if all are, the interval is undefined.
    """
    values = values[~np.isnan(values)]
    if math.isnan(estimate) or len(values) == 0:
        return Interval(estimate, math.nan, math.nan)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return Interval(estimate, float(low), float(high))
