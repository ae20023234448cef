"""The CI gate: pinned cases must hold, and the newest version must not break a case.

It fails when a pinned case (a version's motivating case in the prompt manifest) is not
right on the version that claims to fix it or on the newest version, or when the newest
version gets a case wrong that the version before it got right on the same model. A
judge failure is a wrong case here like anywhere else, and a pinned case missing from a
log fails too, as does a judge model whose newest-version run is missing or unfinished:
nothing is skipped without being said. Listed cases may be allowed; unfinished runs may not.
"""

from dataclasses import dataclass

from comparison.tables import Report, RunSummary


@dataclass(frozen=True)
class Violation:
    case: str
    """Empty when the whole run is at fault."""
    model: str
    version: str
    reason: str
    """One line naming the case, the version and the model."""


@dataclass(frozen=True)
class GateResult:
    violations: list[Violation]
    allowed: list[Violation]
    """Violations on cases the caller allowed: shown, not failing."""
    failures: list[str]
    """One line per run with judge failures: they already count as wrong cases."""
    unused_allows: list[str]

    @property
    def passed(self) -> bool:
        return not self.violations


def _pinned_violations(report: Report) -> list[Violation]:
    found = []
    for check in report.pinned:
        if not check.gating or check.holds:
            continue
        if check.right is None:
            what = f"is not in the {check.version} log"
        else:
            what = f"is wrong on {check.version} (judge: {check.verdict})"
        found.append(
            Violation(
                case=check.case,
                model=check.model,
                version=check.version,
                reason=(
                    f"pinned case {check.case} (fixed by {check.fixed_by}) {what} "
                    f"with {check.model}"
                ),
            )
        )
    return found


def _regressions(report: Report) -> list[Violation]:
    newest = report.runs.versions[-1]
    return [
        Violation(
            case=flip.case,
            model=t.model,
            version=newest,
            reason=(
                f"{newest} breaks {flip.case} with {t.model}: {t.before} was right "
                f"({flip.before}), {newest} is wrong ({flip.after})"
            ),
        )
        for t in report.transitions
        if t.after == newest
        for flip in t.broken
    ]


def _unfinished(report: Report) -> list[Violation]:
    """The newest version must have run to the end with every model, or nothing is known."""
    newest = report.runs.versions[-1]
    logs = report.runs.logs
    found = []
    for model in report.runs.models:
        status = logs[(logs["version"] == newest) & (logs["model"] == model)]["status"]
        if status.empty:
            what = "no run"
        elif status.iloc[0] != "success":
            what = f"an unfinished run (log status '{status.iloc[0]}')"
        else:
            continue
        found.append(
            Violation(
                case="", model=model, version=newest, reason=f"{newest} has {what} with {model}"
            )
        )
    return found


def _failure_line(summary: RunSummary) -> str:
    return (
        f"{summary.version} with {summary.model}: {summary.failures} judge failure(s) in "
        f"{summary.case_epochs} case-epochs, each counted as a wrong verdict"
    )


def evaluate(report: Report, allow: set[str]) -> GateResult:
    found = _pinned_violations(report) + _regressions(report)
    return GateResult(
        violations=_unfinished(report) + [v for v in found if v.case not in allow],
        allowed=[v for v in found if v.case in allow],
        failures=[_failure_line(s) for s in report.summaries if s.failures],
        unused_allows=sorted(allow - {v.case for v in found}),
    )
