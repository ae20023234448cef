"""The annotators measured beside the judges (issue 64), on the cases whose samples carry two
annotators or more (`core/sample_case.py`'s `annotations`):

- the human ceiling: each candidate's agreement with the annotators and the annotators'
  agreement with each other, on the same cases, as percent agreement over (case, annotator)
  pairs, each with a percentile interval over case resamples (the report's `Resampling`);
- the alternative annotator test of each candidate (`farejudge.raters.alt_test`);
- gold that keeps disagreement: each candidate's expected agreement with the Dawid-Skene soft
  label P(ungrounded) and its Brier score against it, and its agreement with the annotators'
  response sets (its verdict is one the annotator found defensible);
- whether the candidates' ranking, and the first of them, changes between forced-choice gold,
  soft gold and response sets.

Only the annotators' labels count (`role: annotator`): an adjudicator labelled only the cases
the others disagreed on, so its labels would weigh the hard cases twice. A candidate's verdict
is its most common over its epochs; a judge failure agrees with no one.
"""

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.panel.majority import Panel
from farejudge.comparison.stats.bootstrap import Resampling, one_chunk_weights
from farejudge.comparison.stats.intervals import Interval, percentile_interval
from farejudge.core.case_schema import verdict_name
from farejudge.core.sample_case import ANNOTATIONS_KEY, LoggedAnnotation
from farejudge.raters import (
    EPSILON_CROWD,
    EPSILON_EXPERT,
    EPSILON_SKILLED,
    MIN_ANNOTATORS,
    AltTest,
    DawidSkene,
    alt_test,
    dawid_skene,
)

Floats = NDArray[np.float64]

EPSILONS = {"expert": EPSILON_EXPERT, "skilled": EPSILON_SKILLED, "crowd": EPSILON_CROWD}
"""`--epsilon`'s named values: the alternative annotator test's authors' margins by the kind
of annotator."""

MIN_SHARED = 2
"""Annotators a case needs to count: one alone has no one to agree with."""

_FAILED = 2.0
"""A judge failure in the label matrix's coding (0 grounded, 1 ungrounded): it matches no one."""


def epsilon_option(text: str) -> float:
    """`--epsilon`: a kind of annotator (expert, skilled, crowd) or a number in (0, 1)."""
    if text in EPSILONS:
        return EPSILONS[text]
    try:
        value = float(text)
    except ValueError:
        raise ValueError(
            f"--epsilon {text}: give {', '.join(EPSILONS)} or a number between 0 and 1"
        ) from None
    if not 0 < value < 1:
        raise ValueError(f"--epsilon {text}: a margin between 0 and 1, exclusive")
    return value


@dataclass(frozen=True)
class HumanFigures:
    """One candidate's figures against the annotators."""

    version: str
    model: str
    """The judge model, or for a panel `panel (a, b, c)`, as the deploy decision names it."""
    agreement: Interval
    """Share of (case, annotator) pairs where its verdict is the annotator's."""
    alt_test: AltTest
    expected_agreement: float
    """Mean over cases of the soft label's probability of its verdict."""
    brier: float
    """Mean over cases of (its P(ungrounded), 0 or 1 by its verdict, − the soft label)²; a
    judge failure counts as the verdict furthest from the soft label."""
    response_set_agreement: Interval
    """Share of (case, annotator) pairs where its verdict is in the annotator's response set."""
    forced_accuracy: float
    """Its accuracy against the settled gold on these cases (the forced-choice single label)."""

    @property
    def name(self) -> str:
        return f"{self.version} with {self.model}"

    @property
    def can_replace(self) -> bool:
        return self.alt_test.passes


@dataclass(frozen=True)
class Rankings:
    """The candidates' order, best first, under each gold."""

    forced: list[str]
    soft: list[str]
    response_sets: list[str]

    @property
    def order_changes(self) -> bool:
        return not self.forced == self.soft == self.response_sets

    @property
    def first_changes(self) -> bool:
        return len({self.forced[0], self.soft[0], self.response_sets[0]}) > 1


@dataclass(frozen=True)
class HumanResults:
    cases: int
    """Cases with at least two annotators that every candidate here judged."""
    annotators: list[str]
    kinds: list[str]
    """The kinds of annotator recorded, in the order first seen."""
    ceiling: Interval
    """The annotators' agreement with each other: share of (case, pair of annotators) that agree."""
    epsilon: float
    dawid_skene: DawidSkene | None
    candidates: list[HumanFigures]
    rankings: Rankings | None
    """None with fewer than two candidates."""

    @property
    def shortfall(self) -> str | None:
        """What the figures lack, in one line; None where nothing is short."""
        if len(self.annotators) < MIN_SHARED:
            return (
                f"{len(self.annotators)} annotator on these cases: the human ceiling needs "
                f"{MIN_SHARED} annotators on a case ({MIN_SHARED - len(self.annotators)} more), "
                f"the alternative annotator test {MIN_ANNOTATORS} "
                f"({MIN_ANNOTATORS - len(self.annotators)} more)"
            )
        if self.cases == 0:
            return (
                f"no case judged by every candidate carries {MIN_SHARED} annotators: the human "
                "ceiling and the alternative annotator test need them on the same cases"
            )
        return None


def _matrix(
    cases: Sequence[str], annotations: Mapping[str, Sequence[LoggedAnnotation]], names: list[str]
) -> Floats:
    """Cases by annotators, 1 ungrounded, 0 grounded, NaN not labelled."""
    found = np.full((len(cases), len(names)), np.nan)
    column = {name: j for j, name in enumerate(names)}
    for i, case in enumerate(cases):
        for a in annotations[case]:
            found[i, column[a.annotator]] = 0.0 if a.grounded else 1.0
    return found


def _defensible(
    cases: Sequence[str], annotations: Mapping[str, Sequence[LoggedAnnotation]], names: list[str]
) -> tuple[Floats, Floats]:
    """Per case and annotator: whether grounded, and whether ungrounded, is in their response
    set (their own verdict alone where they were not asked); NaN where they did not label."""
    grounded = np.full((len(cases), len(names)), np.nan)
    ungrounded = grounded.copy()
    column = {name: j for j, name in enumerate(names)}
    for i, case in enumerate(cases):
        for a in annotations[case]:
            said = a.response_set or [verdict_name(a.grounded)]
            grounded[i, column[a.annotator]] = float("grounded" in said)
            ungrounded[i, column[a.annotator]] = float("ungrounded" in said)
    return grounded, ungrounded


def _pair_agreement(labels: Floats) -> tuple[Floats, Floats]:
    """Per case: agreeing pairs of annotators, and pairs labelled."""
    agree = np.zeros(len(labels))
    pairs = np.zeros(len(labels))
    for a, b in combinations(range(labels.shape[1]), 2):
        both = ~np.isnan(labels[:, a]) & ~np.isnan(labels[:, b])
        pairs += both
        agree += both & (labels[:, a] == labels[:, b])
    return agree, pairs


def _ratio_interval(num: Floats, den: Floats, resampling: Resampling) -> Interval:
    """Σ num / Σ den over cases, with its percentile interval over case resamples."""
    weights = one_chunk_weights(len(num), resampling)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = (weights @ num) / (weights @ den)
    estimate = float(num.sum() / den.sum()) if den.sum() > 0 else math.nan
    return percentile_interval(estimate, values)


def _figures(
    version: str,
    model: str,
    verdicts: Floats,
    labels: Floats,
    defensible: tuple[Floats, Floats],
    soft: Floats | None,
    gold: Floats,
    epsilon: float,
    resampling: Resampling,
) -> HumanFigures:
    """A candidate's figures from its verdicts (0, 1 or `_FAILED` per case)."""
    labelled = ~np.isnan(labels)
    matched = ((labels == verdicts[:, None]) & labelled).sum(axis=1).astype(float)
    count = labelled.sum(axis=1).astype(float)
    grounded, ungrounded = defensible
    in_set = np.where(
        verdicts[:, None] == 0, grounded, np.where(verdicts[:, None] == 1, ungrounded, 0)
    )
    in_set = np.where(labelled, in_set, 0.0).sum(axis=1)
    if soft is None:
        expected = brier = math.nan
    else:
        # A failure gives the verdict the soft label is least sure of.
        p_said = np.where(verdicts == _FAILED, (soft < 0.5).astype(float), verdicts)
        expected = float(
            np.mean(np.where(verdicts == _FAILED, 0.0, np.where(verdicts == 1, soft, 1 - soft)))
        )
        brier = float(np.mean((p_said - soft) ** 2))
    return HumanFigures(
        version=version,
        model=model,
        agreement=_ratio_interval(matched, count, resampling),
        alt_test=alt_test(labels, verdicts, epsilon),
        expected_agreement=expected,
        brier=brier,
        response_set_agreement=_ratio_interval(in_set, count, resampling),
        forced_accuracy=float(np.mean(verdicts == gold)),
    )


def _ranked(candidates: list[HumanFigures], figure: Callable[[HumanFigures], float]) -> list[str]:
    """Names best first by `figure`; among equals, in report order."""
    order = sorted(range(len(candidates)), key=lambda i: (-figure(candidates[i]), i))
    return [candidates[i].name for i in order]


def _coded(verdict: object) -> float:
    """A verdict as the label matrix codes it: a run's reads `ungrounded (2 claims)`, a
    panel's `ungrounded`; anything else but `grounded` is a judge failure."""
    said = str(verdict)
    if said == "grounded":
        return 0.0
    return 1.0 if said.startswith("ungrounded") else _FAILED


def logged_annotations(samples: pd.DataFrame) -> dict[str, list[LoggedAnnotation]]:
    """Each case's annotators as its samples carry them (`annotations`, `core/sample_case.py`):
    the first sample of a case that has them. A case without, or whose summary dropped them
    (Inspect keeps a metadata value of 1 KB at most), has none."""
    if ANNOTATIONS_KEY not in samples:
        return {}
    found: dict[str, list[LoggedAnnotation]] = {}
    for case, logged in zip(samples["case"], samples[ANNOTATIONS_KEY], strict=True):
        if str(case) not in found and isinstance(logged, list):
            found[str(case)] = [LoggedAnnotation.model_validate(each) for each in logged]
    return found


def human_results(
    cases: pd.DataFrame,
    panels: Sequence[Panel],
    annotations: Mapping[str, Sequence[LoggedAnnotation]],
    epsilon: float,
    resampling: Resampling,
) -> HumanResults | None:
    """The annotators' figures and each candidate's beside them, on the cases every candidate
    judged that carry two annotators or more; None where no case carries an annotator (the
    gold set), so a report on it is as before."""
    kept = {
        case: [a for a in found if a.role == "annotator"] for case, found in annotations.items()
    }
    kept = {case: found for case, found in kept.items() if found}
    if not kept:
        return None
    names = sorted({a.annotator for found in kept.values() for a in found})
    kinds = list(dict.fromkeys(str(a.kind) for found in kept.values() for a in found))
    runs = {
        (str(v), str(m)): frame.set_index("case")
        for (v, m), frame in cases.groupby(["version", "model"], sort=False)
    }
    judged: dict[tuple[str, str], pd.Series] = {
        key: frame["verdict"] for key, frame in runs.items()
    }
    for panel in panels:
        judged[(panel.version, f"panel ({', '.join(panel.members)})")] = pd.Series(
            {c.case: c.verdict for c in panel.cases}
        )
    shared = sorted(
        case
        for case, found in kept.items()
        if len(found) >= MIN_SHARED and all(case in v.index for v in judged.values())
    )
    labels = _matrix(shared, kept, names)
    if len(names) < MIN_SHARED or not shared:
        return HumanResults(
            cases=len(shared),
            annotators=names,
            kinds=kinds,
            ceiling=Interval(math.nan, math.nan, math.nan),
            epsilon=epsilon,
            dawid_skene=None,
            candidates=[],
            rankings=None,
        )
    agree, pairs = _pair_agreement(labels)
    model = dawid_skene(labels)
    defensible = _defensible(shared, kept, names)
    gold_of = cases.drop_duplicates("case").set_index("case")["gold_ungrounded"]
    gold = gold_of.reindex(shared).to_numpy(dtype=float)
    figures = [
        _figures(
            version,
            model_name,
            np.array([_coded(v) for v in verdicts.reindex(shared)]),
            labels,
            defensible,
            model.posterior,
            gold,
            epsilon,
            resampling,
        )
        for (version, model_name), verdicts in judged.items()
    ]
    rankings = (
        Rankings(
            forced=_ranked(figures, lambda f: f.forced_accuracy),
            soft=_ranked(figures, lambda f: f.expected_agreement),
            response_sets=_ranked(figures, lambda f: f.response_set_agreement.estimate),
        )
        if len(figures) >= 2
        else None
    )
    return HumanResults(
        cases=len(shared),
        annotators=names,
        kinds=kinds,
        ceiling=_ratio_interval(agree, pairs, resampling),
        epsilon=epsilon,
        dawid_skene=model,
        candidates=figures,
        rankings=rankings,
    )
