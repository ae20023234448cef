"""The report as Markdown: for the terminal and for a pull request."""

from farejudge.shared.document.long_lists import MARKDOWN_ROWS, shown
from farejudge.shared.document.model import Section, Table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _table(table: Table) -> list[str]:
    lines = [f"_{table.caption}_", ""] if table.caption else []
    lines.append("| " + " | ".join(_cell(c) for c in table.columns) + " |")
    lines.append("|" + "---|" * len(table.columns))
    rows, more = shown(table.rows, table.listing, MARKDOWN_ROWS)
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return [*lines, "", *([more, ""] if more else [])]


def render(sections: list[Section]) -> str:
    lines: list[str] = []
    for depth, section in enumerate(sections):
        lines += [f"{'#' if depth == 0 else '##'} {section.title}", ""]
        for paragraph in section.lines:
            lines += [paragraph, ""]
        if section.bullets:
            bullets, more = shown(section.bullets, section.listing, MARKDOWN_ROWS)
            lines += [f"- {b}" for b in bullets] + ([f"- {more}"] if more else []) + [""]
        for table in section.tables:
            lines += _table(table)
    return "\n".join(lines).rstrip() + "\n"
