"""`judge-audit estimate`: one period's share of ungrounded answers, audit.json and its report.

Its statistics (`statistics`) are re-exported here: the period's estimate, whole and by
category.
"""

from farejudge.audit.estimate.statistics import estimate_by_category, estimate_period

__all__ = ["estimate_by_category", "estimate_period"]
