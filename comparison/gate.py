"""The CI gate: pinned cases must hold, and the newest version must not break a case.

It fails when a pinned case (a version's motivating case in the manifest the logs ran
with) is not right on the version that claims to fix it or on the newest version, or when
the newest version gets a case wrong that the version before it got right on the same
model. A judge failure is a wrong case here like anywhere else.

An outage is never blamed on a version: a run with errored samples, an unfinished run, a
missing newest-version run, or a pinned case that a run's case set holds but the run did
not score makes the comparison *incomplete*, a failure of its own that names the runs and
the command that completes them. A pinned case that no compared run's case set holds is
"not in this case set" and fails nothing. Listed cases may be allowed; incomplete runs may not.
"""

from dataclasses import dataclass

from farejudge.comparison.analysis import Report, RunSummary


@dataclass(frozen=True)
class Violation:
    case: str
    """Empty when the whole run is at fault."""
    model: str
    version: str
    reason: str
    """One line naming the case, the version and the model."""
    incomplete: bool = False
    """The runs lack results (an outage, a limit), not the judge: never allowed."""


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

    @property
    def status(self) -> str:
        """PASSED; INCOMPLETE when only missing results stop it; else FAILED."""
        if self.passed:
            return "PASSED"
        return "INCOMPLETE" if all(v.incomplete for v in self.violations) else "FAILED"


def _pinned_violations(report: Report) -> list[Violation]:
    return [
        Violation(
            case=check.case,
            model=check.model,
            version=check.version,
            reason=(
                f"pinned case {check.case} (fixed by {check.fixed_by}) is wrong on "
                f"{check.version} (judge: {check.verdict}) with {check.model}"
            ),
        )
        for check in report.pinned
        if check.gating and check.right is False
    ]


def _retry_hint(log: str | None) -> str:
    if log is None:
        return "complete it by running the same judge-matrix again"
    return f"complete it with `inspect eval-retry {log}` or by running the same judge-matrix again"


def _incomplete(report: Report) -> list[Violation]:
    """Runs that lack results for reasons that are not the judge's: nothing is known there."""
    logs = report.runs.logs
    found = []
    for row in logs.itertuples():
        if row.errored:
            what = f"{row.errored} errored sample(s), not scored (the provider failed)"
        elif row.status != "success":
            what = f"an unfinished run (log status '{row.status}')"
        else:
            continue
        found.append(
            Violation(
                case="",
                model=str(row.model),
                version=str(row.version),
                reason=(
                    f"incomplete: {row.version} with {row.model} has {what}; "
                    + _retry_hint(str(row.log))
                ),
                incomplete=True,
            )
        )
    newest = report.runs.current
    ran = set(zip(logs["version"], logs["model"], strict=True))
    found += [
        Violation(
            case="",
            model=model,
            version=newest,
            reason=f"incomplete: {newest} has no run with {model}",
            incomplete=True,
        )
        for model in report.runs.models
        if (newest, model) not in ran
    ]
    runs = {(str(r.version), str(r.model)): str(r.log) for r in logs.itertuples()}
    found += [
        Violation(
            case=check.case,
            model=check.model,
            version=check.version,
            reason=(
                f"incomplete: pinned case {check.case} (fixed by {check.fixed_by}) has no "
                f"result in the {check.version} run with {check.model}; "
                + _retry_hint(runs.get((check.version, check.model)))
            ),
            incomplete=True,
        )
        for check in report.pinned
        if check.gating and check.missing
    ]
    return found


def _regressions(report: Report) -> list[Violation]:
    newest = report.runs.current
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


def _failure_line(summary: RunSummary) -> str:
    return (
        f"{summary.version} with {summary.model}: {summary.failures} judge failure(s) in "
        f"{summary.case_epochs} case-epochs, each counted as a wrong verdict"
    )


def evaluate(report: Report, allow: set[str]) -> GateResult:
    found = _pinned_violations(report) + _regressions(report)
    return GateResult(
        violations=_incomplete(report) + [v for v in found if v.case not in allow],
        allowed=[v for v in found if v.case in allow],
        failures=[_failure_line(s) for s in report.summaries if s.failures],
        unused_allows=sorted(allow - {v.case for v in found}),
    )
