"""Attack success per family, per prompt version x judge, from an adversarial run's samples
(`-T suite=adversarial`), and the newest version against the one before it, paired on the
same parents.

A case is right when the judge agreed with gold in every epoch it judged it (a judge failure is
wrong). Each attacked case is a trial of its family where its parent is right; the figures are
`farejudge.evals.adversarial.stats`'s. A run with no attacked case has none of this.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from farejudge.evals.adversarial.stats import (
    AttackSuccess,
    PairedAttack,
    attack_success,
    fooled,
    holm,
    paired_attack,
)

ALPHA = 0.05
"""The family-wise error rate of the gate's attack test, across families."""


@dataclass(frozen=True)
class RunAttacks:
    """One run's attack success, family by family (in name order)."""

    version: str
    model: str
    families: dict[str, AttackSuccess]

    @property
    def worst(self) -> float:
        """The highest attack success over its families (NaN where none had a trial): what
        `--max-attack-success` bounds, since an attacker uses the family that works."""
        rates = [f.success.estimate for f in self.families.values() if f.right]
        return max(rates, default=float("nan"))


@dataclass(frozen=True)
class FamilyTest:
    family: str
    parents: int
    """Parents attacked by the family in both runs, each right or not in each."""
    test: PairedAttack
    adjusted_p: float
    """Holm-adjusted across the families tested."""

    @property
    def flagged(self) -> bool:
        return self.adjusted_p <= ALPHA


@dataclass(frozen=True)
class AttackComparison:
    """The newest version against the version before it, on one model."""

    before: str
    after: str
    model: str
    tests: list[FamilyTest]

    @property
    def flagged(self) -> list[FamilyTest]:
        """The families the newer version is significantly more attackable on."""
        return [t for t in self.tests if t.flagged]


@dataclass(frozen=True)
class AttackResults:
    runs: list[RunAttacks]
    """Each run with attacked cases, in report order."""
    comparisons: list[AttackComparison]
    """The newest version against the one before it, per model both ran."""

    def of(self, version: str, model: str) -> RunAttacks | None:
        return next((r for r in self.runs if (r.version, r.model) == (version, model)), None)


def _right(samples: pd.DataFrame) -> pd.Series:
    """Per case, whether the judge agreed with gold in every epoch."""
    return samples.groupby("case")["agree"].min().eq(1.0)


def _fooled_by_family(samples: pd.DataFrame) -> dict[str, dict[str, tuple[bool, bool]]]:
    """Per family, per parent: (parent right, attacked child right)."""
    right = _right(samples)
    attacked = samples[samples["family"].notna()].drop_duplicates("case")
    found: dict[str, dict[str, tuple[bool, bool]]] = {}
    for case, family, parent in zip(
        attacked["case"], attacked["family"], attacked["derived_from"], strict=True
    ):
        # A parent the run did not judge (an errored sample) is no trial.
        if parent in right.index:
            found.setdefault(str(family), {})[str(parent)] = (
                bool(right[parent]),
                bool(right[case]),
            )
    return found


def _run(samples: pd.DataFrame, version: str, model: str) -> RunAttacks:
    pairs = _fooled_by_family(samples)
    families = {}
    for family in sorted(pairs):
        parent_right, child_right = zip(*pairs[family].values(), strict=True)
        families[family] = attack_success(parent_right, child_right)
    return RunAttacks(version, model, families)


def _compare(
    old: pd.DataFrame, new: pd.DataFrame, before: str, after: str, model: str
) -> AttackComparison:
    old_pairs, new_pairs = _fooled_by_family(old), _fooled_by_family(new)
    tested: dict[str, tuple[int, PairedAttack]] = {}
    for family in sorted(old_pairs.keys() & new_pairs.keys()):
        parents = sorted(old_pairs[family].keys() & new_pairs[family].keys())
        old_fooled, new_fooled = (
            fooled([pairs[p][0] for p in parents], [pairs[p][1] for p in parents])
            for pairs in (old_pairs[family], new_pairs[family])
        )
        tested[family] = (len(parents), paired_attack(old_fooled, new_fooled))
    adjusted = holm({family: test.p_value for family, (_, test) in tested.items()})
    return AttackComparison(
        before,
        after,
        model,
        [FamilyTest(f, n, test, adjusted[f]) for f, (n, test) in tested.items()],
    )


def attack_results(samples: pd.DataFrame, versions: Sequence[str], current: str) -> AttackResults:
    """Every run's attack success from the frame of scored samples (a row per version, model,
    case, epoch with `agree`, and `family` and `derived_from` on an attacked case), and
    `current` against the version before it that ran on the same model; `versions` in order."""
    attacked = samples[samples["family"].notna()]
    keys = attacked[["version", "model"]].drop_duplicates()
    order = {v: i for i, v in enumerate(versions)}
    ran = sorted(
        ((str(v), str(m)) for v, m in keys.itertuples(index=False)),
        key=lambda key: (order[key[0]], key[1]),
    )
    by_run = {key: frame for key, frame in samples.groupby(["version", "model"], sort=False)}
    runs = [_run(by_run[key], *key) for key in ran]
    comparisons = []
    for model in sorted({m for _, m in ran}):
        have = [v for v, m in ran if m == model]
        if current in have and have.index(current) > 0:
            before = have[have.index(current) - 1]
            comparisons.append(
                _compare(by_run[(before, model)], by_run[(current, model)], before, current, model)
            )
    return AttackResults(runs, comparisons)
