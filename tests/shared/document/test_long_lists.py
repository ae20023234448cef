"""Long lists cut short in the report's Markdown and page, every row kept in the listing file."""

import json
from pathlib import Path

from farejudge.comparison.report.build import build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.shared.document import markdown
from farejudge.shared.document.long_lists import (
    LISTING_FILE,
    MARKDOWN_ROWS,
    records,
    write_listing,
)
from farejudge.shared.document.model import Section, Table
from tests.support.frame_rows import row, runs


def test_a_long_table_shows_its_first_rows_and_the_file_keeps_all(tmp_path: Path) -> None:
    rows = [[f"c-{i}", "x"] for i in range(57)]
    parts = [
        Section(
            title="T",
            key="t",
            bullets=[f"b{i}" for i in range(25)],
            listing="lines",
            tables=[Table(["Case", "Why"], rows, listing="cases"), Table(["A"], [["1"]] * 30)],
        )
    ]
    text = markdown.render(parts)
    assert text.count("| c-") == MARKDOWN_ROWS
    assert f"… and 37 more: see {LISTING_FILE}" in text
    assert text.count("- b") == MARKDOWN_ROWS and "… and 5 more" in text
    # A table that is not a listing is shown whole.
    assert text.count("| 1 |") == 30
    path = tmp_path / LISTING_FILE
    with path.open("w", encoding="utf-8") as out:
        write_listing(parts, out)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["Case"] for r in lines if r["list"] == "cases"] == [r[0] for r in rows]
    assert len([r for r in lines if r["list"] == "lines"]) == 25


def test_many_flips_are_cut_short_in_the_report_and_listed_in_full() -> None:
    # 45 cases wrong on v1 and right on v2 (fixed), 30 the other way round (broken).
    v1 = [row(f"f-{i}", 1, 0) for i in range(45)] + [row(f"b-{i}", 1, 1) for i in range(30)]
    v2 = [row(f"f-{i}", 1, 1, "v2") for i in range(45)]
    v2 += [row(f"b-{i}", 1, 0, "v2") for i in range(30)]
    report = build_report(runs(v1 + v2), Resampling(50, 0))
    parts = sections(report, evaluate(report.verdicts, report.runs, set()))
    flips = markdown.render(parts).split("## Fixed and broken cases")[1].split("\n## ")[0]
    assert flips.count("| f-") + flips.count("| b-") == MARKDOWN_ROWS
    assert "… and 55 more" in flips
    listed = [r for r in records(parts) if r["list"].startswith("flips")]
    assert len(listed) == 75
    assert {r["Change"] for r in listed} == {"fixed", "broken"}
