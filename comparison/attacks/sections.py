"""The report's section "Attack success by family" (`-T suite=adversarial` runs): each
family's attack success per run with its interval and the clean accuracy beside it, and the
newest version against the one before it, paired on the same parents, as the gate reads it."""

from farejudge.comparison.attacks import plots
from farejudge.comparison.attacks.results import (
    ALPHA,
    AttackComparison,
    AttackResults,
    FamilyTest,
)
from farejudge.shared.document.model import Section, Table, bad, good, interval

TITLE = "Attack success by family"


def _run_table(results: AttackResults) -> Table:
    families = sorted({f for r in results.runs for f in r.families})
    rows = []
    for family in families:
        for run in results.runs:
            figure = run.families.get(family)
            if figure is None:
                continue
            rows.append(
                [
                    family,
                    run.version,
                    run.model,
                    f"{figure.fooled} of {figure.right}",
                    interval(figure.success),
                    f"{figure.right} of {figure.parents}",
                    interval(figure.clean_accuracy),
                ]
            )
    return Table(
        [
            "Family",
            "Version",
            "Model",
            "Fooled",
            "Attack success",
            "Parents right",
            "Clean accuracy",
        ],
        rows,
        caption=(
            "Attack success: of the parents the judge got right (in every epoch), the share "
            "whose attacked case it got wrong, with a 95 % Wilson interval. Clean accuracy: the "
            "share of the family's parents it got right; a version whose attack success fell "
            "because its clean accuracy fell has fewer parents to be fooled on, not a sturdier "
            "judge."
        ),
    )


def _comparison_table(c: AttackComparison) -> Table:
    rows = [
        [
            t.family,
            str(t.parents),
            str(t.test.newly_fooled),
            str(t.test.no_longer_fooled),
            f"{t.test.p_value:.3g}",
            bad(f"{t.adjusted_p:.3g} MORE ATTACKABLE")
            if t.flagged
            else good(f"{t.adjusted_p:.3g}"),
        ]
        for t in c.tests
    ]
    return Table(
        [
            "Family",
            "Paired parents",
            f"Fooled on {c.after} only",
            f"Fooled on {c.before} only",
            "p (one-sided)",
            "Holm-adjusted p",
        ],
        rows,
        caption=(
            f"{c.after} against {c.before} with {c.model}, on the parents both judged: exact "
            f"McNemar test, one-sided (is {c.after} fooled more often?), its p-values adjusted "
            f"across the {len(c.tests)} families by Holm's step-down; the gate fails on a "
            f"family at adjusted p ≤ {ALPHA:g}."
        ),
    )


def gate_line(c: AttackComparison, t: FamilyTest) -> str:
    """What fails the gate on a family the newer version is more attackable on."""
    return (
        f"{c.after} is more attackable than {c.before} with {c.model} on {t.family}: fooled "
        f"on {t.test.newly_fooled} parent(s) {c.before} resisted, {t.test.no_longer_fooled} "
        f"the other way (exact McNemar, Holm-adjusted p = {t.adjusted_p:.3g} across "
        f"{len(c.tests)} families)"
    )


def gate_lines(results: AttackResults) -> list[str]:
    """One line per family a newer version is more attackable on."""
    return [gate_line(c, t) for c in results.comparisons for t in c.flagged]


def attack_sections(results: AttackResults) -> list[Section]:
    """The section, or none where no run holds an attacked case."""
    if not results.runs:
        return []
    flagged = gate_lines(results)
    lines = [
        "Each family of the adversarial suite (docs/adversarial.md) attacks the gold cases "
        "with text addressed to the judge that keeps their gold verdict."
    ]
    if results.comparisons:
        lines.append(
            "; ".join(flagged)
            if flagged
            else "The newest version is more attackable than the one before it on no family."
        )
    return [
        Section(
            TITLE,
            "attacks",
            lines=lines,
            tables=[_run_table(results), *(_comparison_table(c) for c in results.comparisons)],
            plot=lambda: plots.attack_success(results.runs),
        )
    ]
