"""The escalation guarantee beside the human ceiling: a promise of more agreement with gold
than annotators reach with each other is said to be so."""

import math

from farejudge.comparison.escalation.results import EscalationOptions, EscalationResults
from farejudge.comparison.escalation.sections import ceiling_line, escalation_sections
from farejudge.comparison.stats.intervals import Interval
from farejudge.shared.document.model import Toned


def _results(alpha: float) -> EscalationResults:
    return EscalationResults(EscalationOptions(alpha=alpha), [], [], [], [])


def test_a_guarantee_above_the_ceiling_is_said_to_be_above_what_annotators_reach() -> None:
    line = ceiling_line(_results(0.1), Interval(0.85, 0.80, 0.90))
    assert isinstance(line, Toned) and line.tone == "bad"
    assert line.startswith("The guarantee of 90.0 % agreement with gold is above what annotators")
    assert "85.0 % [80.0 %, 90.0 %]" in line


def test_a_guarantee_within_the_ceiling_is_said_to_be_within_it() -> None:
    line = ceiling_line(_results(0.2), Interval(0.85, 0.80, 0.90))
    assert "is within what annotators reach" in line and not isinstance(line, Toned)


def test_the_section_carries_the_line_only_where_there_is_a_ceiling() -> None:
    (without,) = escalation_sections(_results(0.1))
    (with_ceiling,) = escalation_sections(_results(0.1), Interval(0.85, 0.8, 0.9))
    assert with_ceiling.bullets[0] == ceiling_line(_results(0.1), Interval(0.85, 0.8, 0.9))
    assert with_ceiling.bullets[1:] == without.bullets
    nan = Interval(math.nan, math.nan, math.nan)
    assert "no human ceiling" in ceiling_line(_results(0.1), nan)
