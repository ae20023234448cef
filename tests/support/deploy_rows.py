"""Hand-made runs for the deploy decision: 20 cases, a judge wrong on the ones named, at a
price and a latency a call, and the report built from them."""

import math
from typing import Any

from farejudge.comparison.deploy.candidates import DeployOptions
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.report.build import Report, build_report
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.core.decision_file import Quality
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
    rows: list[dict[str, object]], quality: Quality = "balanced_accuracy", **bounds: Any
) -> Report:
    options = DeployOptions(quality=quality, constraints=Constraints(**bounds))
    return build_report(runs(rows), Resampling(200), deploy=options)
