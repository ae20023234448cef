"""Attack success per family and the paired gate over the comparison's frame of samples:
a judge fooled by one family more is flagged there alone, after Holm's correction, and a judge
no attack moves is flagged on some family in at most 5 % of 200 simulated comparisons."""

import numpy as np
import pandas as pd
import pytest

from farejudge.comparison.attacks.results import attack_results
from farejudge.comparison.attacks.sections import attack_sections, gate_lines

FAMILIES = [f"family_{i:02d}" for i in range(21)]
PARENTS = 120


def _rows(
    version: str, fooled: dict[str, np.ndarray], clean: np.ndarray
) -> list[dict[str, object]]:
    """A run's rows: each parent right where `clean` says, each attacked child wrong where its
    family fooled the judge on a parent it got right."""
    rows: list[dict[str, object]] = []
    for p in range(PARENTS):
        parent = f"case-{p:03d}"
        rows.append(
            {
                "version": version,
                "model": "m",
                "case": parent,
                "epoch": 1,
                "agree": float(clean[p]),
                "family": None,
                "derived_from": None,
            }
        )
        for family, was in fooled.items():
            rows.append(
                {
                    "version": version,
                    "model": "m",
                    "case": f"{parent}~{family}",
                    "epoch": 1,
                    "agree": float(not (clean[p] and was[p])),
                    "family": family,
                    "derived_from": parent,
                }
            )
    return rows


def _frame(
    old: dict[str, np.ndarray], new: dict[str, np.ndarray], clean: np.ndarray
) -> pd.DataFrame:
    return pd.DataFrame(_rows("v1", old, clean) + _rows("v2", new, clean))


def test_a_judge_fooled_by_one_family_more_is_flagged_there_alone() -> None:
    rng = np.random.default_rng(0)
    clean = rng.random(PARENTS) < 0.9
    old = {f: rng.random(PARENTS) < 0.05 for f in FAMILIES}
    new = {f: rng.random(PARENTS) < (0.6 if f == "family_07" else 0.05) for f in FAMILIES}
    results = attack_results(_frame(old, new, clean), ["v1", "v2"], "v2")
    (comparison,) = results.comparisons
    flagged = [t.family for t in comparison.flagged]
    test = next(t for t in comparison.tests if t.family == "family_07")
    print(
        f"family_07: {test.test.newly_fooled} newly fooled, {test.test.no_longer_fooled} no "
        f"longer, Holm p = {test.adjusted_p:.2g}; flagged {flagged}; smallest other Holm p = "
        f"{min(t.adjusted_p for t in comparison.tests if t.family != 'family_07'):.2g}"
    )
    assert flagged == ["family_07"]
    run = results.of("v2", "m")
    assert run is not None and run.families["family_07"].success.estimate > 0.4
    assert run.worst == run.families["family_07"].success.estimate
    (line,) = gate_lines(results)
    assert "v2 is more attackable than v1 with m on family_07" in line
    (section,) = attack_sections(results)
    assert "more attackable" in section.lines[-1] and section.plot is not None
    assert section.plot() is not None


@pytest.mark.slow
def test_a_judge_no_attack_moves_is_flagged_in_at_most_5_percent_of_200_runs() -> None:
    rng = np.random.default_rng(1)
    runs_flagged = 0
    for _ in range(200):
        clean = rng.random(PARENTS) < 0.9
        # Both versions fooled at the same rate on every family: the judge no attack moves
        # further than chance.
        old = {f: rng.random(PARENTS) < 0.1 for f in FAMILIES}
        new = {f: rng.random(PARENTS) < 0.1 for f in FAMILIES}
        (comparison,) = attack_results(_frame(old, new, clean), ["v1", "v2"], "v2").comparisons
        runs_flagged += bool(comparison.flagged)
    print(f"flagged on some family in {runs_flagged} of 200 runs")
    assert runs_flagged <= 10


def test_a_parent_the_judge_got_wrong_is_no_trial_and_a_run_without_attacks_has_no_section() -> (
    None
):
    clean = np.array([True, False] * (PARENTS // 2))
    fooled_all = {"family_00": np.ones(PARENTS, dtype=bool)}
    results = attack_results(_frame(fooled_all, fooled_all, clean), ["v1", "v2"], "v2")
    run = results.of("v1", "m")
    assert run is not None
    figure = run.families["family_00"]
    assert (figure.parents, figure.right, figure.fooled) == (PARENTS, PARENTS // 2, PARENTS // 2)
    assert figure.clean_accuracy.estimate == 0.5
    (comparison,) = results.comparisons
    assert comparison.flagged == [] and comparison.tests[0].test.newly_fooled == 0
    gold_only = _frame({}, {}, clean)
    assert attack_sections(attack_results(gold_only, ["v1", "v2"], "v2")) == []
