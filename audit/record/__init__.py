"""The audit's records, audit.json and trend.json, with their schemas (`schema`), and their
figures written as text in a report (`formatting`).

The two records are re-exported here.
"""

from farejudge.audit.record.schema import AuditRecord, TrendRecord

__all__ = ["AuditRecord", "TrendRecord"]
