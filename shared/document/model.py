"""The report's document model: sections, tables, plots, toned text, figures written as text.

Every section builder writes these, and the Markdown and HTML renderers read them alone, so
neither side imports the other: a plot reaches the page as part of its section.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from farejudge.core.intervals import Interval

Tone = Literal["good", "bad"]


class Toned(str):
    """Text that carries its tone, good news or bad, for a renderer that shows it (HTML)."""

    tone: Tone

    def __new__(cls, text: str, tone: Tone) -> "Toned":
        toned = super().__new__(cls, text)
        toned.tone = tone
        return toned


def good(text: str) -> Toned:
    return Toned(text, "good")


def bad(text: str) -> Toned:
    return Toned(text, "bad")


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]
    """Cells; a `Toned` one carries its tone."""
    caption: str = ""
    listing: str = ""
    """Names a list that grows with the cases (flips, unstable cases): renderers show its
    first rows and say how many more there are; the listing file holds every row."""


Plot = Callable[[], bytes | None]
"""Draws a section's plot as PNG bytes, or gives None where there is nothing to draw. Drawn
only by a renderer that shows plots (the HTML page), when it shows the section."""


@dataclass(frozen=True)
class Section:
    title: str
    key: str
    """Names the section, and its plot on the page."""
    lines: list[str] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)
    """Bullets; a `Toned` one carries its tone."""
    tables: list[Table] = field(default_factory=list)
    tone: Tone | None = None
    """The whole section's verdict, where it gives one (the gate)."""
    listing: str = ""
    """Like a table's: names the bullets as a list that grows with the cases."""
    plot: Plot | None = None
    """Shown under the section's text, above its tables."""


def number(x: float, signed: bool = False) -> str:
    if math.isnan(x):
        return "n/a"
    # Adding 0.0 turns the -0.0 that rounding a tiny negative gives into 0.0.
    shown = round(x, 2) + 0.0
    return f"{shown:+.2f}" if signed else f"{shown:.2f}"


def interval(i: Interval, signed: bool = False) -> str:
    if math.isnan(i.estimate):
        return "n/a"
    if math.isnan(i.low):
        return f"{number(i.estimate, signed)} [n/a]"
    return f"{number(i.estimate, signed)} [{number(i.low, signed)}, {number(i.high, signed)}]"
