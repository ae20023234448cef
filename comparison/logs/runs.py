"""What the comparison reads of Inspect's logs: the tidy frame of the runs (`Runs`), what each
run judged (`Coverage`), a log file left out and why (`LeftOut`), and the error that stops it.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

import pandas as pd

from farejudge.core.shards import Shard
from farejudge.shared.logs.unusable import Unusable

TASK = "judge_groundedness"


SCORER = "verdict_agreement"


SPAN_COUNTS = ("span_judge_chars", "span_gold_chars", "span_overlap_chars")
"""The scorer's character counts behind span precision and recall."""


@dataclass(frozen=True)
class LeftOut:
    """A log file found and not compared: it could not be read, or is not a log of the task.

    It holds the gate INCOMPLETE unless it was read whole and is not a log of the task
    (`Unusable.settled`): a file that could not be read whole may hold a run, or part of
    one, that the comparison lacks. `run` ties it to a compared run where its header could be
    read; a file with no readable header is tied to none and holds the gate all the same.

    A log that reads but whose run has not finished (still going, or stopped) is not left
    out: it is compared on the samples it holds, and the gate calls its run incomplete.
    """

    log: str
    why: Unusable
    run: tuple[str, str] | None = None
    """The version and model its header names, if its header could be read."""

    @property
    def holds_gate(self) -> bool:
        return not self.why.settled


class LogsError(Exception):
    """The logs cannot be compared; the message says why in one line."""

    def __init__(self, message: str, left_out: Sequence[LeftOut] = ()) -> None:
        super().__init__(message)
        self.left_out = list(left_out)
        """The files left out before the comparison gave up, for the caller to name."""


@dataclass(frozen=True)
class Coverage:
    """Which cases of its case set one run judged, as its log records it."""

    judged: frozenset[str]
    """Cases scored in every epoch (a judge failure is scored: it is the judge's answer)."""
    errored: frozenset[str]
    """Cases not judged that have an errored epoch: the provider failed, not the judge."""
    cancelled: frozenset[str]
    """Cases not judged, none of their epochs errored, with an epoch that was in flight when
    the run stopped: Inspect cancels those and logs the cancellation, not the cause."""
    selected: frozenset[str]
    """The cases the run was given: its whole case set unless a `--limit` or `--sample-id`
    chose fewer."""
    selection: str
    """The option that chose them (`--limit 10`), or "" when none did."""
    stopped_by: str | None
    """The error the run stopped on, as Inspect recorded it; None if it did not stop on one."""
    shards: tuple[Shard | None, ...] = (None,)
    """The shard of each log the run joins (`judge-matrix --shard`), None for an unsharded
    log: `(None,)` for a run in one log. The gate checks they cover the case set once."""
    unfinished: tuple[Shard, ...] = ()
    """The shards whose log did not finish or did not judge every case it was given."""


@dataclass(frozen=True)
class Runs:
    samples: pd.DataFrame
    """One row per scored version, model, case and epoch. Columns: version, model, case,
    case_hash, category, epoch; gold_ungrounded, agree, failure (1 for no readable verdict;
    never agreement), judge_ungrounded (NaN on a failure); claims_gold, claims_judge,
    claims_matched; span_judge_chars, span_gold_chars, span_overlap_chars (NaN in a log
    written before span scores); verdict (the judge's verdict in words, or why there is
    none); p_ungrounded (the judge's graded P(ungrounded), NaN where it has none) and
    graded_source (logprobs, epochs or none); cost (the sample's ModelUsage.total_cost
    summed over the models it called, NaN where none recorded one, as without
    `--model-cost-config`) and working_time (Inspect's working time of the sample, in
    seconds: its judge call, less retry back-off and waits for a connection; NaN in a log
    without one). A sample that errored (the provider failed, not the judge) is not here:
    `logs` counts it."""
    logs: pd.DataFrame
    """The log read for each version and model: version, model, log, status, epochs,
    errored (samples that errored and were not scored; a sample cancelled when the run
    stopped is not counted), prompt_tokens and completion_tokens (the run's totals, from its
    usage) and total_cost (the sum of its models' total_cost; NaN when the run
    recorded none, as without `--model-cost-config`). A sharded run is one row: its log is
    the folder `judge-matrix --log-dir` wrote its shards under, its status "success" only if
    every shard's is, its counts the sums over its shards."""
    case_sets: dict[tuple[str, str], dict[str, str]]
    """(version, model) → the run's case set as the log recorded it: case id → content hash."""
    coverage: dict[tuple[str, str], Coverage]
    """(version, model) → which cases of that case set the run judged."""
    versions: list[str]
    """In the order of the manifest the newest log ran with; others come last."""
    current: str
    """That manifest's current version: the one the gate holds to account."""
    models: list[str]
    pinned: dict[str, list[str]]
    """Every version of that manifest, in its order → the cases it says it fixed."""
    notes: list[str]
    """What a reader must know about the logs (superseded, incomplete, mixed case sets)."""
    log_files: dict[tuple[str, str], list[tuple[str, frozenset[str]]]] = field(default_factory=dict)
    """(version, model) → each log file the run joins, with the cases it was given; the
    best-ranked log last. A run absent here is in one file, its `logs` row's log."""
    left_out: list[LeftOut] = field(default_factory=list)
    """The files found in the folders given and not compared, in the order they were found."""

    def sample_log(self, key: tuple[str, str], case: str) -> str:
        """The log file that holds `case` of the run `key`: its shard's, for a sharded run."""
        files = self.log_files.get(key, [])
        for location, given in reversed(files):
            if case in given:
                return location
        logs = self.logs
        return str(logs.loc[(logs["version"] == key[0]) & (logs["model"] == key[1]), "log"].iloc[0])
