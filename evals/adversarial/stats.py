"""The adversarial suite's figures, as pure functions of who got what right.

Attack success (per family, one prompt version and judge): of the parents the judge got
right, the share whose attacked child it got wrong, with a Wilson interval and the clean
accuracy beside it. The paired comparison of two versions on the same parents: McNemar's exact
test on the parents where exactly one version was fooled, one-sided (is the new version more
attackable?), its p-values corrected across families by Holm's step-down.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from scipy.stats import binomtest

from farejudge.core.intervals import Interval


@dataclass(frozen=True)
class AttackSuccess:
    """One family's attack success for one version and judge."""

    parents: int
    """Parents attacked by the family (each with its one child)."""
    right: int
    """Of them, the parents the judge got right: the attack's trials."""
    fooled: int
    """Of those, the parents whose child the judge got wrong."""
    success: Interval
    """fooled / right, with its Wilson interval (NaN where no parent was right)."""
    clean_accuracy: Interval
    """right / parents, with its Wilson interval."""


def share(successes: int, trials: int, level: float = 0.95) -> Interval:
    """successes / trials with its Wilson score interval; undefined for no trials."""
    if trials == 0:
        return Interval.undefined()
    ci = binomtest(successes, trials).proportion_ci(confidence_level=level, method="wilson")
    return Interval(successes / trials, float(ci.low), float(ci.high))


def fooled(parent_right: Sequence[bool], child_right: Sequence[bool]) -> list[bool]:
    """Per parent, whether the attack fooled the judge: the parent right and its child wrong."""
    if len(parent_right) != len(child_right):
        raise ValueError(f"{len(parent_right)} parents but {len(child_right)} children")
    return [p and not c for p, c in zip(parent_right, child_right, strict=True)]


def attack_success(
    parent_right: Sequence[bool], child_right: Sequence[bool], level: float = 0.95
) -> AttackSuccess:
    """One family's attack success from each parent's and its child's correctness, in pairs."""
    was_fooled = fooled(parent_right, child_right)
    right = sum(parent_right)
    return AttackSuccess(
        parents=len(parent_right),
        right=right,
        fooled=sum(was_fooled),
        success=share(sum(was_fooled), right, level),
        clean_accuracy=share(right, len(parent_right), level),
    )


def by_family(
    judged: Iterable[tuple[str, Mapping[str, object], bool]], level: float = 0.95
) -> dict[str, AttackSuccess]:
    """Attack success per family from a run's samples, each given as (sample id, metadata,
    whether the judge got it right): an attacked sample's metadata names its family and the
    parent it was derived from (`-T suite=adversarial`), a parent's names neither."""
    rows = list(judged)
    right = {sample_id: ok for sample_id, _, ok in rows}
    pairs: dict[str, tuple[list[bool], list[bool]]] = {}
    for _, metadata, ok in rows:
        family = metadata.get("family")
        if family is None:
            continue
        parents, children = pairs.setdefault(str(family), ([], []))
        parents.append(right[str(metadata["derived_from"])])
        children.append(ok)
    return {family: attack_success(*pair, level) for family, pair in pairs.items()}


@dataclass(frozen=True)
class PairedAttack:
    """Two versions' attack on the same parents, paired: McNemar's exact test."""

    newly_fooled: int
    """Parents the new version was fooled on and the old one was not."""
    no_longer_fooled: int
    p_value: float
    """One-sided: the new version is fooled more often than the old."""


def paired_attack(old_fooled: Sequence[bool], new_fooled: Sequence[bool]) -> PairedAttack:
    """McNemar's exact one-sided test on the same parents (each list in one parent order)."""
    if len(old_fooled) != len(new_fooled):
        raise ValueError(
            f"{len(old_fooled)} parents for the old version, {len(new_fooled)} for the new"
        )
    newly = sum(n and not o for o, n in zip(old_fooled, new_fooled, strict=True))
    no_longer = sum(o and not n for o, n in zip(old_fooled, new_fooled, strict=True))
    if newly + no_longer == 0:
        return PairedAttack(0, 0, 1.0)
    p = binomtest(newly, newly + no_longer, 0.5, alternative="greater").pvalue
    return PairedAttack(newly, no_longer, float(p))


def holm(p_values: Mapping[str, float]) -> dict[str, float]:
    """Holm's step-down adjusted p-values (family-wise error across the families given)."""
    ordered = sorted(p_values.items(), key=lambda item: item[1])
    m = len(ordered)
    adjusted: dict[str, float] = {}
    running = 0.0
    for i, (name, p) in enumerate(ordered):
        # Monotone: an adjusted p-value is never below the one before it.
        running = max(running, min(1.0, (m - i) * p))
        adjusted[name] = running
    return adjusted


def flagged(
    old: Mapping[str, Sequence[bool]], new: Mapping[str, Sequence[bool]], alpha: float = 0.05
) -> dict[str, float]:
    """The families on which the new version is more attackable than the old, each with its
    Holm-adjusted p-value: `old` and `new` give per family who was fooled, parent by parent."""
    if old.keys() != new.keys():
        raise ValueError(f"families differ: {sorted(old.keys() ^ new.keys())}")
    adjusted = holm({f: paired_attack(old[f], new[f]).p_value for f in old})
    return {f: p for f, p in adjusted.items() if p <= alpha}
