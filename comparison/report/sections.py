"""The report's sections, in order: its words and tables, once, for both renderers."""

import math
from pathlib import Path

from farejudge.comparison.figures import (
    GroupAccuracy,
    PinnedCheck,
    Report,
    Transition,
    relation_changes,
)
from farejudge.comparison.gate import GateResult
from farejudge.comparison.logs.frame import LeftOut
from farejudge.comparison.report.deploy_sections import deploy_sections
from farejudge.comparison.report.document import Section, Table, bad, good, interval
from farejudge.comparison.report.graded_sections import graded_sections
from farejudge.comparison.report.panel_sections import panel_sections


def _partial(gate: GateResult) -> list[str]:
    """What a partial comparison left out, said before anything is read as a figure."""
    return [
        "Partial comparison (judge-compare --partial): a run given fewer cases than its case "
        "set (--limit, --sample-id) is compared, and gated, on the cases it was given only. "
        + (
            "; ".join(gate.partial)
            if gate.partial
            else "Every run here was given its whole case set"
        )
        + "."
    ]


LEFT_OUT_LIST = "left_out"


def _run(item: LeftOut, compared: set[tuple[str, str]]) -> str:
    if item.run is None:
        return "—" if item.why.settled else "unknown: no header read"
    version, model = item.run
    return f"{version} with {model}" + ("" if item.run in compared else " (not compared)")


def _left_out(report: Report) -> list[Table]:
    """The files found and not compared, with why: said at the top, since a figure below may
    lack what one of them holds."""
    left_out = report.runs.left_out
    if not left_out:
        return []
    compared = {
        (str(v), str(m))
        for v, m in zip(report.runs.logs["version"], report.runs.logs["model"], strict=True)
    }
    rows = [
        [
            item.log,
            item.why.reason,
            item.why.detail,
            _run(item, compared),
            bad("INCOMPLETE") if item.holds_gate else "none",
        ]
        for item in left_out
    ]
    return [
        Table(
            ["File", "Left out", "Why", "Run", "Gate"],
            rows,
            caption=(
                f"Left out: {len(left_out)} log file(s) found and not compared. A file left "
                "out makes the gate INCOMPLETE: one whose header names a compared run is part "
                "of that run, and one whose header cannot be read may hold a run this "
                "comparison lacks. Only a file read whole and shown not to be a "
                "judge_groundedness log (another task's log; a whole JSON document or zip "
                "archive with no Inspect log in it) fails nothing."
            ),
            listing=LEFT_OUT_LIST,
        )
    ]


def _header(report: Report, gate: GateResult) -> Section:
    runs = report.runs
    cases = runs.samples["case"].nunique()
    epochs = sorted({int(e) for e in runs.logs["epochs"].fillna(1)})
    return Section(
        title="Judge comparison: judge_groundedness",
        key="header",
        lines=_partial(gate) if report.partial else [],
        bullets=[
            f"Versions: {' → '.join(runs.versions)}",
            f"Judge models: {', '.join(runs.models)}",
            f"Cases: {cases}; epochs per run: {', '.join(str(e) for e in epochs)}",
            "Logs: " + ", ".join(sorted({Path(str(p)).name for p in runs.logs["log"]})),
        ],
        tables=_left_out(report),
    )


def _gate(gate: GateResult) -> Section:
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


def _summary(report: Report) -> Section:
    several = report.max_epochs > 1
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
        for s in report.summaries
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


def _flips(report: Report) -> Section:
    tables = []
    for t in report.transitions:
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


def _changed(report: Report) -> Section:
    rows = [[case, t.before, t.after, t.model] for t in report.transitions for case in t.changed]
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


def _tokens(report: Report) -> Section:
    def _dollars(cost: float) -> str:
        return "n/a (no price file)" if math.isnan(cost) else f"${cost:,.4f}"

    cases = {(s.version, s.model): s.case_epochs + s.errored for s in report.summaries}
    rows = []
    for row in report.runs.logs.itertuples():
        n = cases.get((str(row.version), str(row.model)), 0)
        if n:
            rows.append(
                [
                    str(row.version),
                    str(row.model),
                    f"{int(row.prompt_tokens) / n:,.0f}",
                    f"{int(row.completion_tokens) / n:,.0f}",
                    _dollars(float(row.total_cost)),
                    _dollars(float(row.total_cost) / n * 1000),
                ]
            )
    return Section(
        title="Token use per case",
        key="tokens",
        lines=[
            "Prompt and completion tokens per judged case-epoch, from each run's usage: a "
            "longer prompt costs on every answer the judge audits. Cost is each run's "
            "ModelUsage.total_cost, which Inspect fills from a price file (judge-matrix "
            "--model-cost-config); per 1,000 audited answers it is the run's cost over its "
            "case-epochs."
        ],
        tables=[
            Table(
                [
                    "Version",
                    "Model",
                    "Prompt tokens",
                    "Completion tokens",
                    "Cost",
                    "Cost per 1,000 answers",
                ],
                rows,
            )
        ],
    )


def _pinned(report: Report) -> Section:
    versions = report.runs.versions
    manifest_order = list(report.runs.pinned)
    keys = sorted(
        {(c.case, c.fixed_by, c.model) for c in report.pinned},
        key=lambda k: (manifest_order.index(k[1]), k[0], k[2]),
    )
    by_key = {(c.case, c.fixed_by, c.model, c.version): c for c in report.pinned}
    rows = []
    for case, fixed_by, model in keys:
        checks = [by_key.get((case, fixed_by, model, v)) for v in versions]
        status = _pinned_status([c for c in checks if c is not None])
        rows.append([case, fixed_by, model, status] + [_pinned_cell(c) for c in checks])
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


def _group_tables(report: Report, found: list[GroupAccuracy], name: str) -> list[Table]:
    versions = report.runs.versions
    tables = []
    for model in report.runs.models:
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


def _categories(report: Report) -> Section:
    return Section(
        title="Accuracy by category",
        key="categories",
        lines=["Where a change of prompt landed: accuracy per case category and version."],
        tables=_group_tables(report, report.categories, "Category"),
    )


def _relations(report: Report) -> Section:
    return Section(
        title="Accuracy by metamorphic relation",
        key="relations",
        lines=[
            "Whether a fix generalizes: accuracy per relation and version, 'gold' being the "
            "unedited cases. Invariance relations keep gold; directional ones make the answer "
            "ungrounded with a known claim (README, the metamorphic suite)."
        ],
        tables=[
            *_group_tables(report, report.relations, "Relation"),
            _relation_changes(report),
            _worst(report),
        ],
    )


def _relation_changes(report: Report) -> Table:
    rows = [
        [
            f"{c.transition.before} → {c.transition.after}",
            c.transition.model,
            c.relation,
            str(c.fixed),
            str(c.broken),
            f"{c.p_value:.3g}",
        ]
        for t in report.transitions
        for c in relation_changes(t)
    ]
    return Table(
        ["Versions", "Model", "Relation", "Fixed", "Broken", "Exact McNemar p"],
        rows or [["—", "—", "—", "0", "0", "no case changed"]],
        caption="Which relations a prompt change improved or worsened (paired by case id)",
    )


def _worst(report: Report) -> Table:
    failures = sorted(report.derived_failures, key=lambda f: (f.relation, f.model, f.case))
    rows = [[f.case, f.relation, f.model, f.verdict] for f in failures]
    return Table(
        ["Case", "Relation", "Model", f"{report.runs.current} verdict"],
        rows or [["—", "—", "—", "none"]],
        caption=(
            f"Failing examples on {report.runs.current}: the gold case right, the derived case "
            f"wrong ({len(failures)})"
        ),
        listing="failing examples" if rows else "",
    )


def _confusion(report: Report) -> Section:
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
        for c in report.confusions
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
    )


def _verdict_counts(verdicts: dict[str, int]) -> str:
    return ", ".join(f"{kind}: {n}" for kind, n in sorted(verdicts.items()))


def _stability(report: Report) -> Section:
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
            for s in report.stability
        ],
    )
    unstable = Table(
        ["Version", "Model", "Case", "Category", "Verdicts over epochs"],
        [
            [c.version, c.model, c.case, c.category, _verdict_counts(c.verdicts)]
            for c in report.unstable_cases
        ]
        or [["—", "—", "—", "—", "every case gave one verdict in all its epochs"]],
        caption="Cases whose verdict changed between epochs",
        listing="unstable" if report.unstable_cases else "",
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
    )


def _notes(report: Report) -> Section:
    return Section(
        title="Notes",
        key="notes",
        bullets=[
            "Intervals are 95 %: Wilson score for accuracy, judge-failure rate, precision, "
            "recall and the unstable share; percentile bootstrap over cases "
            f"({report.resamples} resamples, seed {report.seed}) for balanced accuracy, F1, "
            "kappa, claim precision and recall, span precision, recall and F1, accuracy change "
            "and consistency.",
            "Over several epochs a case contributes the share of its epochs to each count, "
            "and intervals treat the case, not the epoch, as the unit.",
            *report.runs.notes,
        ],
    )


def sections(report: Report, gate: GateResult) -> list[Section]:
    found = [
        _header(report, gate),
        # First after the title: the question the matrix was run to answer.
        *deploy_sections(report.deployment),
        _gate(gate),
        _summary(report),
        _flips(report),
        _changed(report),
        _pinned(report),
        _categories(report),
        *([_relations(report)] if {r.group for r in report.relations} != {"gold"} else []),
        _confusion(report),
        *graded_sections(report),
        *panel_sections(report),
        _tokens(report),
    ]
    if report.max_epochs > 1:
        found.append(_stability(report))
    found.append(_notes(report))
    return found
