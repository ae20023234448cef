"""The report as one self-contained HTML page: tables and plots, no external assets."""

import base64
from html import escape

from farejudge.shared.document.long_lists import HTML_ROWS, shown
from farejudge.shared.document.model import Section, Table, Toned

_STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em;
     border-bottom: 1px solid #ddd; padding-bottom: .2em; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #d0d0d0; padding: .25em .55em; text-align: left;
         vertical-align: top; }
th { background: #f3f3f3; }
caption { caption-side: top; text-align: left; font-style: italic; padding: .3em 0; }
td.bad, li.bad { color: #b71c1c; font-weight: 600; }
td.good { color: #1b5e20; }
h2.passed { color: #1b5e20; } h2.failed { color: #b71c1c; }
img { max-width: 100%; border: 1px solid #eee; margin: .5em 0; }
"""


def _tone(text: str) -> str:
    tone = text.tone if isinstance(text, Toned) else None
    return f' class="{tone}"' if tone else ""


def _table(table: Table) -> str:
    caption = f"<caption>{escape(table.caption)}</caption>" if table.caption else ""
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    rows, more = shown(table.rows, table.listing, HTML_ROWS)
    body = "".join(
        "<tr>" + "".join(f"<td{_tone(c)}>{escape(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    left_out = f"<p>{escape(more)}</p>" if more else ""
    return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{left_out}"


def _plot(section: Section) -> str:
    png = section.plot() if section.plot else None
    if png is None:
        return ""
    data = base64.b64encode(png).decode("ascii")
    return f'<img alt="{escape(section.key)} plot" src="data:image/png;base64,{data}">'


def _section(section: Section, depth: int) -> str:
    tag = "h1" if depth == 0 else "h2"
    # A section's verdict shows in its heading: passed or failed.
    tone = {"good": ' class="passed"', "bad": ' class="failed"', None: ""}[section.tone]
    parts = [f"<{tag}{tone}>{escape(section.title)}</{tag}>"]
    parts += [f"<p>{escape(p)}</p>" for p in section.lines]
    if section.bullets:
        bullets, more = shown(section.bullets, section.listing, HTML_ROWS)
        items = [f"<li{_tone(b)}>{escape(b)}</li>" for b in bullets]
        items += [f"<li>{escape(more)}</li>"] if more else []
        parts.append("<ul>" + "".join(items) + "</ul>")
    parts.append(_plot(section))
    parts += [_table(t) for t in section.tables]
    return "\n".join(p for p in parts if p)


def render(sections: list[Section]) -> str:
    body = "\n".join(_section(s, depth) for depth, s in enumerate(sections))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(sections[0].title)}</title><style>{_STYLE}</style></head>"
        f"<body>\n{body}\n</body></html>\n"
    )
