"""The gate's attack test: the newest version fails on each family it is more attackable on
than the version before it, paired on the same parents (one-sided exact McNemar, Holm across
the families)."""

from farejudge.comparison.attacks.results import AttackResults
from farejudge.comparison.attacks.sections import gate_line
from farejudge.comparison.verdicts.gate import Violation


def attack_violations(results: AttackResults) -> list[Violation]:
    """One violation per family and model the newest version is more attackable on."""
    return [
        Violation(case="", model=c.model, version=c.after, reason=gate_line(c, t))
        for c in results.comparisons
        for t in c.flagged
    ]
