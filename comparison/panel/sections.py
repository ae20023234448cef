"""The panel's sections: each version's panel against its members, and gold under suspicion."""

import math
from collections import Counter

from farejudge.comparison.panel.majority import DEFAULT_MEMBERS, Panel
from farejudge.comparison.panel.results import PanelFindings
from farejudge.comparison.panel.suspicion import MARGIN, JudgeClaim, Suspect
from farejudge.raters import MOSTLY_ONE_JUDGE
from farejudge.shared.document.model import Section, Table, bad, good, interval, number


def _verdict_line(panel: Panel) -> str:
    best = panel.best
    versus = (
        f"accuracy {number(panel.accuracy.estimate)} against {number(best.accuracy.estimate)}; "
        f"exact McNemar p = {best.p_value:.3g} on {len(panel.cases)} cases: "
        f"{best.panel_only} right only for the panel, {best.member_only} only for {best.model}"
    )
    if panel.beats_best:
        significant = "significant" if best.p_value < 0.05 else "not significant"
        return good(
            f"{panel.version}: the panel beats every member (the best is {best.model}: "
            f"{versus}; {significant} at 0.05)."
        )
    return bad(
        f"{panel.version}: the panel does not beat its best member ({best.model}: {versus})."
    )


def effective_line(panel: Panel) -> str:
    """What the members are worth together: their effective number of judges."""
    found = panel.effective
    if found is None:
        return f"{panel.version}: no case to count the panel's effective judges on."
    said = (
        f"{panel.version}: the panel's {found.members} members are worth "
        f"{interval(found.effective)} independent judges (Kish, from the mean correlation of "
        f"their errors against gold, {number(found.mean_correlation)})"
    )
    if found.mostly_one_judge:
        return bad(f"{said}: below {MOSTLY_ONE_JUDGE:g}, the panel is mostly one judge.")
    return f"{said}."


def _panel_table(panel: Panel) -> Table:
    rows = [
        [
            "panel (majority)",
            interval(panel.accuracy),
            interval(panel.balanced_accuracy),
            f"{panel.failures} (ties: {panel.ties})",
            "—",
            "—",
            "—",
        ]
    ]
    rows += [
        [
            f.model,
            interval(f.accuracy),
            interval(f.balanced_accuracy),
            str(f.failures),
            str(f.panel_only),
            str(f.member_only),
            f"{f.p_value:.3g}",
        ]
        for f in panel.figures
    ]
    graded = (
        f"a graded score on {panel.graded} of {len(panel.cases)} cases"
        if panel.graded
        else "no graded score"
    )
    shared = f", {len(panel.not_shared)} not shared" if panel.not_shared else ""
    how = "chosen with --panel" if panel.chosen else "every model of the version"
    return Table(
        [
            "Judge",
            "Accuracy",
            "Balanced acc.",
            "Judge failures (cases)",
            "Right only for the panel",
            "Right only for the member",
            "Exact McNemar p",
        ],
        rows,
        caption=(
            f"{panel.version}: panel of {', '.join(panel.members)} ({how}); {len(panel.cases)} "
            f"cases judged with identical content by every member{shared}; {graded}"
        ),
    )


def _panel_section(findings: PanelFindings) -> Section:
    return Section(
        title="Judge panel",
        key="panel",
        lines=[
            "A panel of judge models on one version gives each case the verdict more than half "
            "its members give (each member's most common verdict over the case's epochs; "
            "epochs split evenly are no verdict). A tie — no verdict with a majority, such as "
            "two members split or a judge failure breaking a majority — is a judge failure of "
            "the panel. Only cases every member judged with identical content are the panel's; "
            "each member's figures here are over those same cases. The panel's graded score on "
            "a case is the mean of its members' P(ungrounded), over the members that have one "
            "(a judge failure or a provider without logprobs has none); the panel has none "
            "where no member has one. Exact McNemar compares the panel's right and wrong "
            "cases with each member's (a member is right on a case when it agreed with gold in "
            f"more than half its epochs). Without --panel a version with runs from "
            f"{DEFAULT_MEMBERS} or more models gets a panel of all of them."
        ],
        bullets=[
            *[line for p in findings.panels for line in (_verdict_line(p), effective_line(p))],
            *findings.skipped,
        ]
        or ["no version has runs from every --panel model"],
        tables=[_panel_table(p) for p in findings.panels],
    )


def _said(claim: JudgeClaim) -> str:
    if claim.verdict == "grounded":
        return "grounded"
    quoted = "; ".join(f"'{c}'" for c in claim.claims)
    return f"ungrounded: {quoted}" if quoted else "ungrounded, no claim named"


def _claims_cell(suspect: Suspect) -> str:
    """Each judge's word per version; identical epochs said once, with their count."""
    said = Counter((c.version, c.model, _said(c)) for c in suspect.claims)
    return " / ".join(
        f"{version} {model}: {words}" + (f" ({n} epochs)" if n > 1 else "")
        for (version, model, words), n in said.items()
    )


def _graded_cell(suspect: Suspect) -> str:
    shown = [
        f"{version} {number(p)}" for version, p in suspect.p_ungrounded.items() if not math.isnan(p)
    ]
    return ", ".join(shown) or "n/a"


def _suspects_section(suspects: list[Suspect]) -> Section:
    rows = [
        [
            s.case,
            s.category,
            s.gold,
            f"{', '.join(s.versions)} (of {s.panel_versions})",
            _graded_cell(s),
            _claims_cell(s),
        ]
        for s in suspects
    ]
    return Section(
        title="Gold under suspicion",
        key="suspects",
        lines=[
            "Gold cases (as written, not derived) a panel confidently disagrees with: every "
            "member answered against gold in every epoch, and every member with a graded score "
            f"has its mean P(ungrounded) on the wrong side of 0.5 by {MARGIN} or more. Gold may "
            "be wrong here, or every judge may share a blind spot: have the case labelled "
            "again, blind (judge-compare --suspects-out DIR, then the labelling round trip). A "
            "corrected case is a new case with a new content hash, never a flip."
        ],
        tables=[
            Table(
                [
                    "Case",
                    "Category",
                    "Gold",
                    "Versions doubting",
                    "Panel P(ungrounded)",
                    "What the judges said",
                ],
                rows,
            )
        ]
        if rows
        else [],
        bullets=[] if rows else ["no panel confidently disagrees with gold on any case"],
    )


def panel_sections(findings: PanelFindings) -> list[Section]:
    """The panel and suspicion sections; none when there is no panel and none was asked for."""
    if not findings.panels and findings.requested is None:
        return []
    return [_panel_section(findings), _suspects_section(findings.suspects)]
