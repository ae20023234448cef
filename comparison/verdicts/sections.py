"""The verdict comparison's sections: the gate, figures, flips, pinned cases, groups, stability."""

import math

from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.verdicts import plots
from farejudge.comparison.verdicts.figures import (
    CaseStability,
    ConfusionCounts,
    DerivedFailure,
    GroupAccuracy,
    RunSummary,
    StabilitySummary,
)
from farejudge.comparison.verdicts.flips import Transition, relation_changes
from farejudge.comparison.verdicts.gate import GateResult
from farejudge.comparison.verdicts.pinned import PinnedCheck
from farejudge.comparison.verdicts.results import VerdictResults
from farejudge.shared.document.model import Section, Table, bad, good, interval


def gate_section(gate: GateResult) -> Section:
    status = gate.status
    bullets: list[str] = [bad(f"FAIL: {v.reason}") for v in gate.violations]
    bullets += [f"allowed: {v.reason}" for v in gate.allowed]
    bullets += [f"judge failures: {line}" for line in gate.failures]
    bullets += [f"allowed, but nothing to allow: {case}" for case in gate.unused_allows]
    return Section(
        title=f"Gate: {status}",
        key="gate",
        tone="good" if gate.passed else "bad",
        lines=[
            "The gate fails when a pinned case is wrong on the version that fixed it or on "
            "the newest version, or when the newest version breaks a case the version before "
            "it got right with the same judge model. It is incomplete, which fails too, when "
            "a run did not judge every case of its case set (errored samples: the provider "
            "failed, not the judge; a run stopped or unfinished; a --limit, unless compared "
            "with --partial), or lacks a pinned case another run's case set holds."
        ],
        bullets=bullets or ["nothing to report"],
        listing="gate" if bullets else "",
    )


def _summary(summaries: list[RunSummary], max_epochs: int) -> Section:
    several = max_epochs > 1
    rows = [
        [
            s.version,
            s.model,
            f"{s.cases}, {s.case_epochs // s.cases} epochs each" if several else str(s.cases),
            str(s.errored),
            f"{s.failures} (rate {interval(s.failure_rate)})",
            interval(s.accuracy),
            interval(s.balanced_accuracy),
            interval(s.precision),
            interval(s.recall),
            interval(s.f1),
            interval(s.kappa),
            interval(s.claim_precision),
            interval(s.claim_recall),
            interval(s.span_precision),
            interval(s.span_recall),
            interval(s.span_f1),
        ]
        for s in summaries
    ]
    columns = ["Version", "Model", "Cases scored", "Errored samples", "Judge failures"]
    columns += ["Accuracy", "Balanced acc."]
    columns += ["Precision", "Recall", "F1", "Kappa", "Claim precision", "Claim recall"]
    columns += ["Span precision", "Span recall", "Span F1"]
    return Section(
        title="By version and model",
        key="summary",
        lines=[
            "Each figure with its 95 % interval, over the scored cases: an errored sample (the "
            "provider failed, not the judge) is in no figure and makes the gate incomplete. "
            "Accuracy counts a judge failure as wrong; "
            "the confusion-table figures (balanced accuracy, precision, recall and F1 for "
            "'ungrounded', kappa) are over the cases the judge answered. Claim precision and "
            "recall say whether the judge named the right claims; span precision, recall and F1 "
            "how much of what it quoted is gold's unsupported text, by characters (n/a for a "
            "log written before span scores)."
        ],
        tables=[Table(columns, rows)],
        plot=lambda: plots.summary(summaries),
    )


def _transition_line(t: Transition) -> str:
    return (
        f"{t.before} → {t.after} with {t.model}: {len(t.fixed)} fixed, {len(t.broken)} "
        f"broken of {t.shared} cases; exact McNemar p = {t.p_value:.3g}; accuracy change "
        f"{interval(t.accuracy_change, signed=True)}. {_detectable(t)}"
    )


def _detectable(t: Transition) -> str:
    """What "no significant change" means with this many cases: no change, or too few cases."""
    if t.p_value < 0.05:
        return "The change is significant (p < 0.05)."
    if math.isnan(t.detectable_change):
        return (
            f"Not significant, and {t.shared} paired cases at this discordance cannot detect "
            "any change with 80 % power: too few cases (or no case changed at all)."
        )
    return (
        f"Not significant; {t.shared} paired cases detect a change of "
        f"{t.detectable_change * 100:.1f} points or more (exact McNemar, alpha 0.05, 80 % power, "
        "at the observed discordance): a smaller real change could hide here."
    )


def _flips(transitions: list[Transition]) -> Section:
    tables = []
    for t in transitions:
        rows = [
            [f.case, f.category, change, f.before, f.after]
            for change, flips in ((good("fixed"), t.fixed), (bad("broken"), t.broken))
            for f in flips
        ]
        tables.append(
            Table(
                ["Case", "Category", "Change", f"{t.before} verdict", f"{t.after} verdict"],
                rows or [["—", "—", "no case changed", "—", "—"]],
                caption=_transition_line(t),
                listing=f"flips {t.before} → {t.after} with {t.model}" if rows else "",
            )
        )
    return Section(
        title="Fixed and broken cases",
        key="flips",
        lines=[
            "Between consecutive versions with the same judge model: fixed is wrong → right, "
            "broken is right → wrong. A case is right when the judge agreed with gold in more "
            "than half its epochs."
        ],
        tables=tables,
        bullets=[] if tables else ["only one version per model: nothing to compare"],
        plot=lambda: plots.flips(transitions),
    )


NOT_IN_CASE_SET = "not in this case set"
LEFT_OUT = "left out (partial)"


def _pinned_cell(check: PinnedCheck | None) -> str:
    if check is None:
        return "—"
    if check.holds:
        return good("holds")
    if check.right is None:
        if not check.in_case_sets:
            return NOT_IN_CASE_SET
        if check.left_out:
            return LEFT_OUT
        return bad("INCOMPLETE (no result)") if check.gating else "no result (not gated)"
    what = f"judge: {check.verdict}"
    return bad(f"FAILS ({what})") if check.gating else bad(f"wrong ({what}; not gated)")


def _pinned_status(checks: list[PinnedCheck]) -> str:
    # A partial run holds the gate to the cases it was given: one it left out is not checked.
    gated = [c for c in checks if c.gating and not c.left_out]
    if not gated and any(c.left_out for c in checks):
        return LEFT_OUT
    if all(c.holds for c in gated):
        return good("holds")
    if all(c.right is None and not c.in_case_sets for c in checks):
        return NOT_IN_CASE_SET
    if any(c.right is False for c in gated):
        return bad("FAILS")
    return bad("INCOMPLETE")


def _changed(transitions: list[Transition]) -> Section:
    rows = [[case, t.before, t.after, t.model] for t in transitions for case in t.changed]
    return Section(
        title="Changed between runs: not compared",
        key="changed",
        lines=[
            "Cases whose content (question, passages, answer, gold, rationale, ...) differs "
            "between the two runs' logs: under the same id they are different cases, so they "
            "count as neither fixed nor broken."
        ],
        tables=[Table(["Case", "Earlier run", "Later run", "Model"], rows, listing="changed")]
        if rows
        else [],
        bullets=[] if rows else ["every case both runs scored has identical content in both"],
    )


def _pinned(checks: list[PinnedCheck], versions: list[str], manifest_order: list[str]) -> Section:
    keys = sorted(
        {(c.case, c.fixed_by, c.model) for c in checks},
        key=lambda k: (manifest_order.index(k[1]), k[0], k[2]),
    )
    by_key = {(c.case, c.fixed_by, c.model, c.version): c for c in checks}
    rows = []
    for case, fixed_by, model in keys:
        found = [by_key.get((case, fixed_by, model, v)) for v in versions]
        status = _pinned_status([c for c in found if c is not None])
        rows.append([case, fixed_by, model, status] + [_pinned_cell(c) for c in found])
    return Section(
        title="Pinned cases",
        key="pinned",
        lines=[
            "Each version's motivating cases in the prompt manifest the logs ran with must be "
            "right from that version onward; the gate checks the fixing version and the newest "
            "one. A pinned case that no compared run's case set holds is shown as "
            f"'{NOT_IN_CASE_SET}' and fails nothing; with --partial, one a run was not given "
            f"is '{LEFT_OUT}' there and is not checked on it."
        ],
        tables=[Table(["Case", "Fixed by", "Model", "Status", *versions], rows)] if rows else [],
        bullets=[] if rows else ["no version in these logs names a motivating case"],
    )


def _group_tables(
    found: list[GroupAccuracy], name: str, versions: list[str], models: list[str]
) -> list[Table]:
    tables = []
    for model in models:
        cells = {(c.group, c.version): c for c in found if c.model == model}
        groups = sorted({group for group, _ in cells})
        rows = [
            [
                group,
                str(max(c.cases for (k, _), c in cells.items() if k == group)),
                *[
                    interval(cells[(group, v)].accuracy) if (group, v) in cells else "—"
                    for v in versions
                ],
            ]
            for group in groups
        ]
        tables.append(Table([name, "Cases", *versions], rows, caption=f"Judge: {model}"))
    return tables


def _categories(categories: list[GroupAccuracy], versions: list[str], models: list[str]) -> Section:
    return Section(
        title="Accuracy by category",
        key="categories",
        lines=["Where a change of prompt landed: accuracy per case category and version."],
        tables=_group_tables(categories, "Category", versions, models),
        plot=lambda: plots.categories(categories, versions, models),
    )


def _relations(verdicts: VerdictResults, runs: Runs) -> Section:
    return Section(
        title="Accuracy by metamorphic relation",
        key="relations",
        lines=[
            "Whether a fix generalizes: accuracy per relation and version, 'gold' being the "
            "unedited cases. Invariance relations keep gold; directional ones make the answer "
            "ungrounded with a known claim (README, the metamorphic suite)."
        ],
        tables=[
            *_group_tables(verdicts.relations, "Relation", runs.versions, runs.models),
            _relation_changes(verdicts.transitions),
            _worst(verdicts.derived_failures, runs.current),
        ],
    )


def _relation_changes(transitions: list[Transition]) -> Table:
    rows = [
        [
            f"{c.transition.before} → {c.transition.after}",
            c.transition.model,
            c.relation,
            str(c.fixed),
            str(c.broken),
            f"{c.p_value:.3g}",
        ]
        for t in transitions
        for c in relation_changes(t)
    ]
    return Table(
        ["Versions", "Model", "Relation", "Fixed", "Broken", "Exact McNemar p"],
        rows or [["—", "—", "—", "0", "0", "no case changed"]],
        caption="Which relations a prompt change improved or worsened (paired by case id)",
    )


def _worst(derived: list[DerivedFailure], current: str) -> Table:
    failures = sorted(derived, key=lambda f: (f.relation, f.model, f.case))
    rows = [[f.case, f.relation, f.model, f.verdict] for f in failures]
    return Table(
        ["Case", "Relation", "Model", f"{current} verdict"],
        rows or [["—", "—", "—", "none"]],
        caption=(
            f"Failing examples on {current}: the gold case right, the derived case "
            f"wrong ({len(failures)})"
        ),
        listing="failing examples" if rows else "",
    )


def _confusion(
    confusions: list[ConfusionCounts], versions: list[str], models: list[str]
) -> Section:
    rows = [
        [
            c.version,
            c.model,
            str(c.tp),
            str(c.fn),
            str(c.fp),
            str(c.tn),
            str(c.failed_ungrounded),
            str(c.failed_grounded),
        ]
        for c in confusions
    ]
    columns = ["Version", "Model", "TP", "FN", "FP", "TN"]
    columns += ["Failures, gold ungrounded", "Failures, gold grounded"]
    return Section(
        title="Confusion matrices",
        key="confusion",
        lines=[
            "Counts over case-epochs, 'ungrounded' as the positive class: TP = both say "
            "ungrounded, FN = the judge missed an ungrounded answer, FP = the judge flagged a "
            "grounded answer, TN = both say grounded. Judge failures are counted apart."
        ],
        tables=[Table(columns, rows)],
        plot=lambda: plots.confusion(confusions, versions, models),
    )


def _verdict_counts(verdicts: dict[str, int]) -> str:
    return ", ".join(f"{kind}: {n}" for kind, n in sorted(verdicts.items()))


def _stability(summaries: list[StabilitySummary], unstable_cases: list[CaseStability]) -> Section:
    summary = Table(
        ["Version", "Model", "Cases", "Unstable cases", "Consistency"],
        [
            [
                s.version,
                s.model,
                str(s.cases),
                f"{round(s.unstable.estimate * s.cases)} (share {interval(s.unstable)})",
                interval(s.consistency),
            ]
            for s in summaries
        ],
    )
    unstable = Table(
        ["Version", "Model", "Case", "Category", "Verdicts over epochs"],
        [
            [c.version, c.model, c.case, c.category, _verdict_counts(c.verdicts)]
            for c in unstable_cases
        ]
        or [["—", "—", "—", "—", "every case gave one verdict in all its epochs"]],
        caption="Cases whose verdict changed between epochs",
        listing="unstable" if unstable_cases else "",
    )
    return Section(
        title="Stability across epochs",
        key="stability",
        lines=[
            "A case is unstable when its verdict (grounded, ungrounded or judge failure) "
            "differs between epochs. Consistency is the mean share of a case's epochs that "
            "give its most common verdict."
        ],
        tables=[summary, unstable],
        plot=lambda: plots.stability(summaries),
    )


def verdict_sections(verdicts: VerdictResults, runs: Runs) -> list[Section]:
    """The runs' figures, the flips, the pinned cases, accuracy by category and relation (where
    the logs hold a relation other than gold), and the confusion matrices."""
    versions, models = runs.versions, runs.models
    return [
        _summary(verdicts.summaries, verdicts.max_epochs),
        _flips(verdicts.transitions),
        _changed(verdicts.transitions),
        _pinned(verdicts.pinned, versions, list(runs.pinned)),
        _categories(verdicts.categories, versions, models),
        *(
            [_relations(verdicts, runs)]
            if {r.group for r in verdicts.relations} != {"gold"}
            else []
        ),
        _confusion(verdicts.confusions, versions, models),
    ]


def stability_sections(verdicts: VerdictResults) -> list[Section]:
    """Stability across epochs, where any run has more than one."""
    if verdicts.max_epochs <= 1:
        return []
    return [_stability(verdicts.stability, verdicts.unstable_cases)]
