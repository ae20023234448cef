"""`judge-audit plan`: how many labels a period needs for an interval of a given half-width."""
