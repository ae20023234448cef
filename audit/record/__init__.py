"""The audit's records, audit.json and trend.json, with their schemas (`schema`,
`trend_schema`), and their figures written as text in a report (`formatting`).

The two records are re-exported here.
"""

from pydantic import BaseModel

from farejudge.audit.record.schema import AuditRecord
from farejudge.audit.record.trend_schema import TrendRecord

SCHEMAS: dict[str, type[BaseModel]] = {"audit": AuditRecord, "trend": TrendRecord}
"""Each record `judge-audit schema NAME` prints."""

__all__ = ["SCHEMAS", "AuditRecord", "TrendRecord"]
