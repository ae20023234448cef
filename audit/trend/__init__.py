"""`judge-audit trend`: the periods' audit.json side by side, the judge-drift detector and the
rate alert, trend.json and its report."""
