"""The report's long lists (flips, unstable cases, gate lines): shown in part, kept whole.

A list that grows with the cases would make a report of 100,000 cases unreadable and slow
to render. The Markdown shows the first rows of each and the HTML a few more, each saying
how many it left out; every row goes into a JSON Lines file beside the report.
"""

import json
from collections.abc import Iterator, Sequence
from typing import IO, TypeVar

from farejudge.shared.document.model import Section

LISTING_FILE = "cases.jsonl"
"""Beside report.md: one JSON object per row of every long list, named by its "list"."""
MARKDOWN_ROWS = 20
HTML_ROWS = 200

Row = TypeVar("Row")


def shown(rows: Sequence[Row], listing: str, limit: int) -> tuple[list[Row], str]:
    """The rows to show of a list, and the line saying what was left out ("" if nothing)."""
    if not listing or len(rows) <= limit:
        return list(rows), ""
    more = len(rows) - limit
    return list(rows[:limit]), f'… and {more:,} more: see {LISTING_FILE} (list "{listing}")'


def records(sections: Sequence[Section]) -> Iterator[dict[str, str]]:
    """Every row of every long list: its list's name, then its cells by column."""
    for section in sections:
        if section.listing:
            yield from ({"list": section.listing, "item": str(b)} for b in section.bullets)
        for table in section.tables:
            if table.listing:
                for row in table.rows:
                    cells = zip(table.columns, map(str, row), strict=True)
                    yield {"list": table.listing, **dict(cells)}


def write_listing(sections: Sequence[Section], out: IO[str]) -> None:
    """Every row of every long list into `out`, the listing file's stream, one at a time."""
    for record in records(sections):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
