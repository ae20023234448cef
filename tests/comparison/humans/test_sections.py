"""The annotators' section as a reader sees it: the ceiling, who can replace an annotator and
who cannot, the ranking line, and a shortfall said in place of figures."""

from farejudge.comparison.humans.results import Rankings
from farejudge.comparison.humans.sections import ranking_line, section
from farejudge.shared.document import markdown
from tests.support.contested_judges import ANNOTATIONS, GOLD, JUDGES, results_of


def test_the_section_names_the_ceiling_and_who_can_replace_an_annotator() -> None:
    text = markdown.render([section(results_of(JUDGES))])
    assert "Human ceiling: the annotators agree with each other on" in text
    lines = {
        line.split("|")[1].strip(): line
        for line in text.splitlines()
        if line.startswith("| v1 with") and "ω" in line
    }
    assert "can replace an annotator" in lines["v1 with majority"]
    assert "cannot replace an annotator" in lines["v1 with fails"]
    assert "at ε = 0.2" in text
    assert "agent-a won (p " in text


def test_one_annotator_is_said_in_the_section() -> None:
    alone = {c: [a for a in found if a.annotator == "agent-c"] for c, found in ANNOTATIONS.items()}
    text = markdown.render([section(results_of({"gold": dict(GOLD)}, alone))])
    assert "1 annotator on these cases" in text and "(2 more)" in text
    assert "Human ceiling" not in text


def test_the_ranking_line_says_what_changes() -> None:
    same = Rankings(["a", "b"], ["a", "b"], ["a", "b"])
    swapped = Rankings(["a", "b"], ["b", "a"], ["a", "b"])
    below = Rankings(["a", "b", "c"], ["a", "c", "b"], ["a", "b", "c"])
    assert (
        ranking_line(same)
        == "The ranking is the same on forced-choice gold, soft gold and response sets: a first."
    )
    assert "the first changes: a on forced-choice gold, b on soft gold" in ranking_line(swapped)
    assert ranking_line(below).endswith("a stays first.")
