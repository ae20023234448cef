"""The pinned cases' checks: each motivating case on every version from its fixing one on."""

from dataclasses import dataclass

import pandas as pd

from farejudge.comparison.logs.frame import Runs


@dataclass(frozen=True)
class PinnedCheck:
    case: str
    fixed_by: str
    model: str
    version: str
    right: bool | None
    """None when the version's log has no score for the case."""
    in_case_sets: bool
    """Whether any compared run's case set holds the case; if none does, it is not missing."""
    verdict: str | None
    gating: bool
    """Whether the gate requires it: on the version that fixed it, and on the newest."""
    left_out: bool
    """In the run's case set, but not among the cases it was given (a `--limit`), and the
    comparison is partial: it holds the run to those cases only."""

    @property
    def holds(self) -> bool:
        return self.right is True

    @property
    def missing(self) -> bool:
        """In the case sets but not scored in this run: the comparison is incomplete."""
        return self.right is None and self.in_case_sets and not self.left_out


def held_cases(runs: Runs, key: tuple[str, str], partial: bool) -> set[str]:
    """The cases a run must have judged: its case set; with `partial`, those it was given."""
    case_set = set(runs.case_sets[key])
    return case_set & runs.coverage[key].selected if partial else case_set


def pinned_checks(runs: Runs, cases: pd.DataFrame, partial: bool) -> list[PinnedCheck]:
    """Every pinned case on every model and every version from its fixing one onward."""
    indexed = cases.set_index(["version", "model", "case"])
    in_case_sets = {case for case_set in runs.case_sets.values() for case in case_set}
    held = {key: held_cases(runs, key, partial) for key in runs.case_sets}
    newest = runs.current
    # Manifest order; a version the manifest does not know is taken to come after them all.
    rank = {v: i for i, v in enumerate(runs.pinned)}
    checks = []
    for fixed_by, pinned_cases in runs.pinned.items():
        onward = [v for v in runs.versions if rank.get(v, len(rank)) >= rank[fixed_by]]
        for case in pinned_cases:
            for model in runs.models:
                for version in onward:
                    key = (version, model, case)
                    found = key in indexed.index
                    checks.append(
                        PinnedCheck(
                            case=case,
                            fixed_by=fixed_by,
                            model=model,
                            version=version,
                            right=bool(indexed.at[key, "right"]) if found else None,
                            in_case_sets=case in in_case_sets,
                            verdict=str(indexed.at[key, "verdict"]) if found else None,
                            gating=version in (fixed_by, newest),
                            left_out=case in runs.case_sets.get((version, model), {})
                            and case not in held[(version, model)],
                        )
                    )
    return checks
