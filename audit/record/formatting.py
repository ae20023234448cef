"""The audit's figures as the reports write them: rates in percent, intervals in points."""

from farejudge.core.decision_file import Figure


def percent(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


def interval(f: Figure | None) -> str:
    """`21.3 % [17.9, 24.7]`, the ends in percent."""
    if f is None or f.estimate is None:
        return "n/a"
    if f.low is None or f.high is None:
        return f"{percent(f.estimate)} [n/a]"
    return f"{percent(f.estimate)} [{100 * f.low:.1f}, {100 * f.high:.1f}]"


def width(f: Figure | None) -> str:
    """The interval's width in points of percent."""
    if f is None or f.low is None or f.high is None:
        return "n/a"
    return f"{100 * (f.high - f.low):.1f} pts"
