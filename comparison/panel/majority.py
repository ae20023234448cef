"""A judge panel: several judge models on one prompt version, one verdict per case by majority.

Each member votes its most common verdict kind over a case's epochs (grounded, ungrounded or
judge failure; epochs split evenly between kinds are no verdict, a judge failure). The panel's
verdict is the kind more than half its members voted; without one (two members split, a
failure breaking a majority) the case is a tie, and a tie is a judge failure: the panel gave
no verdict. Only cases every member judged with identical content are the panel's.
"""

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from farejudge.comparison.logs.frame import LogsError
from farejudge.comparison.stats.bootstrap import Resampling, bootstrap
from farejudge.comparison.stats.intervals import Interval, mcnemar_exact, wilson
from farejudge.raters import EffectiveJudges, effective_judges
from farejudge.scorers.confusion import Confusion, cells

FAILURE = "judge failure"
DEFAULT_MEMBERS = 3
"""judge-compare builds a panel of every model of a version that has runs from this many."""


class PanelError(LogsError):
    """`--panel` names what these logs cannot make a panel of; the message says why."""


@dataclass(frozen=True)
class MemberCase:
    """One member's judgement of one panel case."""

    vote: str
    agree: float
    """Share of its epochs that agreed with gold."""
    failed_epochs: int
    p_ungrounded: float
    """Its graded P(ungrounded), mean over epochs; NaN where it has none."""


@dataclass(frozen=True)
class PanelCase:
    case: str
    category: str
    relation: str
    case_hash: str
    gold: str
    """Gold's verdict kind: grounded or ungrounded."""
    members: dict[str, MemberCase]
    verdict: str
    tie: bool
    """No verdict had a majority: the panel's verdict is a judge failure."""
    p_ungrounded: float
    """Mean of the members' graded scores, over the members that have one; NaN if none has."""

    @property
    def right(self) -> bool:
        return self.verdict == self.gold


@dataclass(frozen=True)
class MemberFigures:
    """One member's figures over the panel's cases, and how the panel compares with it."""

    model: str
    accuracy: Interval
    balanced_accuracy: Interval
    failures: int
    """Cases whose vote is a judge failure."""
    panel_only: int
    """Cases the panel got right and the member wrong."""
    member_only: int
    p_value: float
    """Exact McNemar test of the panel against the member on these cases."""


@dataclass(frozen=True)
class Panel:
    version: str
    members: list[str]
    chosen: bool
    """Named with `--panel`, rather than every model of the version."""
    cases: list[PanelCase]
    not_shared: list[str]
    """Cases some member did not judge, or judged with other content: not the panel's."""
    accuracy: Interval
    balanced_accuracy: Interval
    figures: list[MemberFigures]
    effective: EffectiveJudges | None
    """How many independent judges the members are worth, from their errors' correlation
    against gold (Kish); None without a case."""

    @property
    def failures(self) -> int:
        return sum(c.verdict == FAILURE for c in self.cases)

    @property
    def ties(self) -> int:
        return sum(c.tie for c in self.cases)

    @property
    def graded(self) -> int:
        """Cases with a panel graded score."""
        return sum(not math.isnan(c.p_ungrounded) for c in self.cases)

    @property
    def best(self) -> MemberFigures:
        """The member with the highest accuracy; the first named among equals."""
        return max(self.figures, key=lambda f: f.accuracy.estimate)

    @property
    def beats_best(self) -> bool:
        return self.accuracy.estimate > self.best.accuracy.estimate


def vote(kinds: Mapping[str, int]) -> str:
    """A member's vote: its most common verdict kind over epochs; an even split is none."""
    ranked = Counter(kinds).most_common()
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return FAILURE
    return ranked[0][0]


def majority(votes: Sequence[str]) -> tuple[str, bool]:
    """The panel's verdict and whether it is a tie: the kind more than half the votes gave."""
    kind, n = Counter(votes).most_common(1)[0]
    if 2 * n > len(votes):
        return kind, False
    return FAILURE, True


def _balanced(t: NDArray[np.float64]) -> float:
    return Confusion(tp=t[0], fn=t[1], fp=t[2], tn=t[3]).balanced_accuracy


_CASE_COLUMNS = ["case", "category", "relation", "case_hash", "gold_ungrounded"]
_MEMBER_COLUMNS = ["model", "kinds", "agree", "failed_epochs", "p_ungrounded"]


def _panel_cases(ordered: pd.DataFrame, size: int) -> list[PanelCase]:
    """The panel's verdict on each case, from the members' per-case rows: `size` rows a case,
    one per member, consecutive."""
    # Plain lists, not frame rows: a frame row costs more than the whole case's verdict.
    about = list(zip(*(ordered[c].tolist() for c in _CASE_COLUMNS), strict=True))
    judged = list(zip(*(ordered[c].tolist() for c in _MEMBER_COLUMNS), strict=True))
    found = []
    for first in range(0, len(judged), size):
        members = {
            str(model): MemberCase(
                vote=vote(kinds),
                agree=float(agree),
                failed_epochs=int(failed_epochs),
                p_ungrounded=float(p_ungrounded),
            )
            for model, kinds, agree, failed_epochs, p_ungrounded in judged[first : first + size]
        }
        verdict, tie = majority([m.vote for m in members.values()])
        graded = [m.p_ungrounded for m in members.values() if not math.isnan(m.p_ungrounded)]
        case, category, relation, case_hash, gold = about[first]
        found.append(
            PanelCase(
                case=str(case),
                category=str(category),
                relation=str(relation),
                case_hash=str(case_hash),
                gold="ungrounded" if gold else "grounded",
                members=members,
                verdict=verdict,
                tie=tie,
                p_ungrounded=float(np.mean(graded)) if graded else math.nan,
            )
        )
    return found


def _panel_cells(cases: list[PanelCase]) -> NDArray[np.float64]:
    answered = np.array([c.verdict != FAILURE for c in cases], dtype=float)
    gold = np.array([c.gold == "ungrounded" for c in cases], dtype=float)
    judged = np.array([c.verdict == "ungrounded" for c in cases], dtype=float)
    return np.column_stack(cells(answered, gold, judged)).reshape(len(cases), 4)


def _figures(
    model: str, rows: pd.DataFrame, cases: list[PanelCase], resampling: Resampling
) -> MemberFigures:
    """`rows`: the member's per-case rows, in the order of `cases`."""
    right = rows["right"].to_numpy(dtype=bool)
    panel_right = np.array([c.right for c in cases], dtype=bool)
    panel_only = int((panel_right & ~right).sum())
    member_only = int((right & ~panel_right).sum())
    return MemberFigures(
        model=model,
        accuracy=wilson(rows["agree"].sum(), len(rows)),
        balanced_accuracy=bootstrap(
            rows[["tp", "fn", "fp", "tn"]].to_numpy(dtype=float), _balanced, resampling
        ),
        failures=sum(c.members[model].vote == FAILURE for c in cases),
        panel_only=panel_only,
        member_only=member_only,
        p_value=mcnemar_exact(panel_only, member_only),
    )


def build_panel(
    cases: pd.DataFrame,
    version: str,
    members: Sequence[str],
    chosen: bool,
    resampling: Resampling,
) -> Panel:
    """The panel of `members` on `version`, from the per-case frame (`cases.per_case`)."""
    mine = cases[(cases["version"] == version) & cases["model"].isin(members)]
    by_case = mine.groupby("case", sort=True)["case_hash"]
    whole = (by_case.size() == len(members)) & (by_case.nunique() == 1)
    shared = sorted(str(case) for case in whole.index[whole])
    # Stable: each case's rows keep the frame's order of members.
    ordered = mine[mine["case"].isin(shared)].sort_values("case", kind="stable")
    panel_cases = _panel_cases(ordered, len(members))
    figures = [
        _figures(m, ordered[ordered["model"] == m], panel_cases, resampling) for m in members
    ]
    return Panel(
        version=version,
        members=list(members),
        chosen=chosen,
        cases=panel_cases,
        not_shared=sorted({str(case) for case in whole.index} - set(shared)),
        accuracy=wilson(sum(c.right for c in panel_cases), len(panel_cases)),
        balanced_accuracy=bootstrap(_panel_cells(panel_cases), _balanced, resampling),
        figures=figures,
        effective=_effective(panel_cases, members, resampling) if panel_cases else None,
    )


_CODED = {"grounded": 0.0, "ungrounded": 1.0}
"""A vote as a label; a judge failure is coded apart from both, so it is always an error."""


def _effective(
    panel_cases: Sequence[PanelCase], members: Sequence[str], resampling: Resampling
) -> EffectiveJudges:
    """The members' effective number on the panel's cases."""
    votes = [[_CODED.get(c.members[m].vote, 2.0) for m in members] for c in panel_cases]
    gold = [_CODED[c.gold] for c in panel_cases]
    return effective_judges(votes, gold, resampling.resamples, resampling.seed)


def chosen_members(names: Sequence[str], models: Sequence[str]) -> list[str]:
    """The `--panel` names, checked against the models these logs have runs with."""
    members = list(dict.fromkeys(names))
    unknown = [name for name in members if name not in models]
    if unknown:
        raise PanelError(
            f"--panel {unknown[0]}: no run with that model in these logs "
            f"(models: {', '.join(models)})"
        )
    if len(members) < 2:
        raise PanelError("--panel: a panel needs at least two models")
    return members


def build_panels(
    cases: pd.DataFrame,
    versions: Sequence[str],
    names: Sequence[str] | None,
    resampling: Resampling,
) -> tuple[list[Panel], list[str]]:
    """A panel per version: of `names` if given, else of every model where there are at least
    DEFAULT_MEMBERS; and, one line each, the versions that have no panel and why."""
    panels, skipped = [], []
    for version in versions:
        present = sorted(set(cases.loc[cases["version"] == version, "model"].astype(str)))
        if names is None:
            if len(present) >= DEFAULT_MEMBERS:
                panels.append(build_panel(cases, version, present, False, resampling))
            continue
        missing = [name for name in names if name not in present]
        if missing:
            skipped.append(f"{version}: no panel, no scored run with {', '.join(missing)}")
        else:
            panels.append(build_panel(cases, version, names, True, resampling))
    return panels, skipped
