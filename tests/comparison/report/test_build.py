"""The report holds one field per feature, and only the composer of its sections takes it
whole: every section, plot and renderer takes the results it shows."""

import importlib
import inspect
import pkgutil
import re
import typing
from collections.abc import Callable, Iterator
from typing import Any

import farejudge.comparison
from farejudge.comparison.report.build import Report
from farejudge.comparison.report.sections import sections
from farejudge.shared.document import html, markdown
from farejudge.shared.document.model import Section

COMPOSER = f"{sections.__module__}.{sections.__name__}"
"""Hands each feature's sections that feature's results: the one function that takes them all."""


def _functions() -> Iterator[tuple[str, Callable[..., Any]]]:
    """Every function defined at the top of a module of the comparison, by its full name."""
    for info in pkgutil.walk_packages(farejudge.comparison.__path__, "farejudge.comparison."):
        module = importlib.import_module(info.name)
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == info.name:
                yield f"{info.name}.{name}", function


def _mentions(annotation: object, wanted: type) -> bool:
    """Whether `wanted` is the annotation or anywhere inside it (list[Report], Report | None);
    an annotation left as text names it."""
    if isinstance(annotation, str):
        return re.search(rf"\b{wanted.__name__}\b", annotation) is not None
    return annotation is wanted or any(_mentions(a, wanted) for a in typing.get_args(annotation))


def _hints(function: Callable[..., Any]) -> dict[str, object]:
    """The function's annotations, resolved; as written where a name in them is imported for
    the type checker alone."""
    try:
        return typing.get_type_hints(function)
    except NameError:
        return dict(function.__annotations__)


def _parameters(function: Callable[..., Any]) -> dict[str, object]:
    return {name: hint for name, hint in _hints(function).items() if name != "return"}


def _draws_part_of_the_report(name: str, function: Callable[..., Any]) -> bool:
    """A section builder (it returns a section or a list of them) or a plot (a function of a
    feature's plots module)."""
    return _mentions(_hints(function).get("return"), Section) or name.rsplit(".", 2)[-2] == "plots"


def test_no_section_or_plot_function_takes_the_whole_report() -> None:
    found = dict(_functions())
    takers = {
        name
        for name, function in found.items()
        if any(_mentions(hint, Report) for hint in _parameters(function).values())
    }
    assert takers == {COMPOSER}
    drawing = [
        name for name, function in found.items() if _draws_part_of_the_report(name, function)
    ]
    # Every feature's sections and plots were looked at, not an empty list.
    for feature in ("verdicts", "graded", "panel", "deploy", "escalation"):
        assert any(f".{feature}.sections." in name for name in drawing), feature
    for feature in ("verdicts", "graded", "deploy", "escalation"):
        assert any(f".{feature}.plots." in name for name in drawing), feature
    assert len(drawing) > 30


def test_the_renderers_take_the_document_alone() -> None:
    for render in (html.render, markdown.render):
        assert _parameters(render) == {"sections": list[Section]}
