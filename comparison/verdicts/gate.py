"""The CI gate: pinned cases must hold, and the newest version must not break a case.

It fails when a pinned case (a version's motivating case in the manifest the logs ran
with) is not right on the version that claims to fix it or on the newest version, or when
the newest version gets a case wrong that the version before it got right on the same
model. A judge failure is a wrong case here like anywhere else. Features add their own
failures (`evaluate`'s `also`): the newest version more attackable than the one before it on
an attack family (`farejudge.comparison.attacks.gate`).

An outage is never blamed on a version, and a run that did not judge its whole case set
never passes: errored samples, a run stopped or unfinished, a `--limit`, a missing
newest-version run, or a pinned case that another compared run's case set holds make the
comparison *incomplete*, a failure of its own that names the runs, what they did not judge
and the command that completes them. Only when asked (`--partial`) is a run given fewer
cases than its case set held to those alone. A pinned case that no compared run's case set
holds is "not in this case set" and fails nothing. Listed cases may be allowed; incomplete
runs may not.

A sharded run (`judge-matrix --shard i/N`) is its shards' logs joined: it is incomplete
while a shard is missing, and when its logs may judge a case twice (shards of two splits, or
an unsharded log beside shard logs of the same run).

A log file left out of the comparison (empty, truncated, damaged, unreadable) makes it
incomplete too: one whose header names a compared run's version and model is that run's (a
shard of it, a retry), and one whose header cannot be read may hold a run the comparison
lacks, so it holds the gate as well. Only a file read whole and shown not to be a log of the
task (another task's log, a whole JSON document or zip archive with no Inspect log in it) is
listed and fails nothing.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from farejudge.comparison.logs.frame import Coverage, LeftOut, Runs
from farejudge.comparison.verdicts.figures import RunSummary
from farejudge.comparison.verdicts.pinned import held_cases
from farejudge.comparison.verdicts.results import VerdictResults
from farejudge.core.shards import Shard


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
    partial: list[str]
    """With `--partial`: one line per run held to fewer cases than its case set."""

    @property
    def passed(self) -> bool:
        return not self.violations

    @property
    def status(self) -> str:
        """PASSED; INCOMPLETE when only missing results stop it; else FAILED."""
        if self.passed:
            return "PASSED"
        return "INCOMPLETE" if all(v.incomplete for v in self.violations) else "FAILED"


def _pinned_violations(verdicts: VerdictResults) -> list[Violation]:
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
        for check in verdicts.pinned
        if check.gating and check.right is False
    ]


def _retry_hint(log: str | None) -> str:
    if log is None:
        return "complete it by running the same judge-matrix again"
    return f"complete it with `inspect eval-retry {log}` or by running the same judge-matrix again"


def _shard_command(shard: Shard, log_dir: str) -> str:
    # A shard's eval set resumes its folder: it judges what it lacks, and retries its errors.
    return f"`judge-matrix --shard {shard} --log-dir {log_dir} ...`"


def _shard_retry_hint(coverage: Coverage, log_dir: str) -> str:
    if not coverage.unfinished:
        return _retry_hint(None)
    commands = ", ".join(_shard_command(s, log_dir) for s in coverage.unfinished)
    return f"complete it by running {commands} again (with the run's other options)"


def _shard_problems(coverage: Coverage, log_dir: str) -> list[str]:
    """Why a sharded run's logs do not hold its case set exactly once; none for one log."""
    shards = [shard for shard in coverage.shards if shard is not None]
    if not shards:
        return []
    problems = []
    if None in coverage.shards:
        listed = ", ".join(str(s) for s in shards)
        problems.append(
            f"an unsharded log beside shard logs ({listed}) of the same run: cases judged "
            "twice; compare the unsharded log or the shards, not both"
        )
    splits = {s.count: {t.index for t in shards if t.count == s.count} for s in shards}
    whole = [count for count, indices in splits.items() if len(indices) == count]
    # The split the others are measured against: a whole one if there is one.
    kept = whole[0] if whole else max(splits)
    others = [s for s in shards if s.count != kept]
    if others:
        problems.append(
            f"shard(s) {', '.join(str(s) for s in others)} of another split than {kept} "
            "overlap it: cases judged twice; remove their logs (their shard-I-of-N folders)"
        )
    if not whole:
        problems += [
            f"shard {index}/{kept} missing: run {_shard_command(Shard(index, kept), log_dir)} again"
            for index in range(kept)
            if index not in splits[kept]
        ]
    return problems


def _not_judged(
    runs: Runs, partial: bool, key: tuple[str, str], status: str, log: str
) -> Violation | None:
    """The run's line when it did not judge every case it must have, or did not finish."""
    coverage = runs.coverage[key]
    held = held_cases(runs, key, partial)
    missing = held - coverage.judged
    problems = _shard_problems(coverage, log)
    if not missing and status == "success" and not problems:
        return None
    if problems and not coverage.selection:
        # A missing shard's cases were given to no log read: its line says so.
        missing &= coverage.selected
    errored = missing & coverage.errored
    cancelled = missing & coverage.cancelled
    left_out = missing - coverage.selected
    what = list(problems)
    if missing:
        counts = f"{len(errored)} errored, {len(missing) - len(errored)} never run"
        if cancelled:
            # Inspect logs these as cancelled, not as the outage that stopped the run.
            counts += f", {len(cancelled)} of them cancelled in flight"
        pinned = missing & {case for cases in runs.pinned.values() for case in cases}
        among = f", pinned {', '.join(sorted(pinned))} among them" if pinned else ""
        what.append(f"{len(missing)} of {len(held)} cases not judged ({counts}){among}")
    if coverage.stopped_by:
        what.append(f"the run stopped on: {coverage.stopped_by}")
    elif status != "success":
        what.append(f"the run did not finish (log status '{status}')")
    # eval-retry judges what the run was given and did not judge, never what a --limit left out.
    if missing - left_out or status != "success":
        sharded = any(shard is not None for shard in coverage.shards)
        what.append(_shard_retry_hint(coverage, log) if sharded else _retry_hint(log))
    if left_out:
        what.append(
            f"it ran with {coverage.selection or 'a selection of its cases'}: run it again "
            "without it, or compare the cases it holds with `judge-compare --partial`"
        )
    return Violation(
        case="",
        model=key[1],
        version=key[0],
        reason=f"incomplete: {key[0]} with {key[1]}: " + "; ".join(what),
        incomplete=True,
    )


_REPLACE = "replace it with a whole copy, or remove it, and compare again"


def _left_out(item: LeftOut, compared: set[tuple[str, str]]) -> Violation:
    """The line of a left-out file that may hold results the comparison lacks."""
    if item.run in compared:
        version, model = item.run
        reason = (
            f"incomplete: {version} with {model}: its log {item.log} is left out, "
            f"{item.why}; {_REPLACE}"
        )
        return Violation(case="", model=model, version=version, reason=reason, incomplete=True)
    holds = (
        f"it holds the {item.run[0]} run with {item.run[1]}, which nothing here compares"
        if item.run
        else "it may hold a run this comparison lacks"
    )
    reason = f"incomplete: {item.log} is left out, {item.why}: {holds}; {_REPLACE}"
    version, model = item.run or ("", "")
    return Violation(case="", model=model, version=version, reason=reason, incomplete=True)


def _incomplete(verdicts: VerdictResults, runs: Runs) -> list[Violation]:
    """Runs that lack results for reasons that are not the judge's: nothing is known there."""
    logs = runs.logs
    found = [
        violation
        for version, model, status, log in zip(
            logs["version"], logs["model"], logs["status"], logs["log"], strict=True
        )
        if (
            violation := _not_judged(
                runs, verdicts.partial, (str(version), str(model)), str(status), str(log)
            )
        )
    ]
    newest = runs.current
    ran = set(zip(logs["version"], logs["model"], strict=True))
    found += [
        Violation(
            case="",
            model=model,
            version=newest,
            reason=f"incomplete: {newest} has no run with {model}",
            incomplete=True,
        )
        for model in runs.models
        if (newest, model) not in ran
    ]
    found += [_left_out(item, ran) for item in runs.left_out if item.holds_gate]
    # A pinned case the run's own case set holds is named in the run's line above; these are
    # the ones a run lacks, or a missing run would lack, while another compared run holds them.
    found += [
        Violation(
            case=check.case,
            model=check.model,
            version=check.version,
            reason=(
                f"incomplete: pinned case {check.case} (fixed by {check.fixed_by}) has no "
                f"result in the {check.version} run with {check.model}; "
                + (
                    "its case set does not hold it: run it on one that does"
                    if (check.version, check.model) in ran
                    else _retry_hint(None)
                )
            ),
            incomplete=True,
        )
        for check in verdicts.pinned
        if check.gating
        and check.missing
        and check.case not in runs.case_sets.get((check.version, check.model), {})
    ]
    return found


def _partial_lines(runs: Runs, partial: bool) -> list[str]:
    found = []
    for key, case_set in runs.case_sets.items():
        held = held_cases(runs, key, partial)
        if len(held) < len(case_set):
            selection = runs.coverage[key].selection or "a selection of its cases"
            found.append(
                f"{key[0]} with {key[1]} is compared on the {len(held)} of its "
                f"{len(case_set)} cases it was given ({selection})"
            )
    return found


def _regressions(verdicts: VerdictResults, newest: str) -> list[Violation]:
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
        for t in verdicts.transitions
        if t.after == newest
        for flip in t.broken
    ]


def _failure_line(summary: RunSummary) -> str:
    return (
        f"{summary.version} with {summary.model}: {summary.failures} judge failure(s) in "
        f"{summary.case_epochs} case-epochs, each counted as a wrong verdict"
    )


def evaluate(
    verdicts: VerdictResults, runs: Runs, allow: set[str], also: Sequence[Violation] = ()
) -> GateResult:
    """The gate over the verdict comparison of `runs`; cases in `allow` may fail. `also`: the
    features' own violations (a version more attackable than the one before it), never
    allowed."""
    found = _pinned_violations(verdicts) + _regressions(verdicts, runs.current)
    return GateResult(
        # A feature's line sums up many cases: before the cases' own, which may be cut short.
        violations=_incomplete(verdicts, runs)
        + list(also)
        + [v for v in found if v.case not in allow],
        allowed=[v for v in found if v.case in allow],
        failures=[_failure_line(s) for s in verdicts.summaries if s.failures],
        unused_allows=sorted(allow - {v.case for v in found}),
        partial=_partial_lines(runs, verdicts.partial),
    )
