"""Two audited weeks of one period the scripted judge judged, as files on disk: the run's
`.json` log (as `--log-format json` writes it), a sample and its labels, decision.json, and
each week's audit.json. What the audit's bad-number and fuzz tests edit, one value at a time.

Also the edits themselves: every value of a JSON document by its path, and the document with
one of them replaced or removed.
"""

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from farejudge.audit.cli import EXIT_INPUT, run
from farejudge.audit.stats.design import AuditSample
from farejudge.testing.production_runs import write_drafts
from tests.support.audit_runs import judge_period, label_sample, write_decision

COUNT = 60
SIZE = 30
WEEKS = (("2026-W48", 5), ("2026-W49", 7))

Path_ = tuple[str | int, ...]
"""Where a value is in a JSON document: its keys and indices from the top."""


@dataclass(frozen=True)
class AuditedWeeks:
    root: Path
    json_log: Path
    """The period's one log, in Inspect's .json format."""
    sample: Path
    """The first week's sample.json."""
    labels: Path
    """Its labels, every sampled draft labelled with its truth."""
    decision: Path
    audits: list[Path]
    """Each week's audit.json, oldest first."""


def audited_weeks(root: Path) -> AuditedWeeks:
    """A period of COUNT synthetic drafts judged once, sampled and estimated for two weeks."""
    drafts = write_drafts(root / "drafts.jsonl", COUNT)
    log = judge_period(root / "drafts.jsonl", root / "eval-logs")
    json_log = root / "logs" / "production.json"
    json_log.parent.mkdir()
    write_eval_log(read_eval_log(log.location), str(json_log), format="json")
    write_decision(root / "decision.json")
    audits = []
    for week, seed in WEEKS:
        folder = root / week
        argv = ["sample", "--drafts", str(root / "drafts.jsonl"), "--size", str(SIZE)]
        assert run([*argv, "--seed", str(seed), "--out", str(folder)]) == 0
        sample = AuditSample.model_validate_json(
            (folder / "sample.json").read_text(encoding="utf-8")
        )
        label_sample(folder / "labels.jsonl", drafts, sample)
        argv = ["estimate", str(json_log.parent), "--sample", str(folder / "sample.json")]
        argv += ["--labels", str(folder / "labels.jsonl"), "--period", week]
        argv += ["--decision", str(root / "decision.json"), "--out", str(folder / "audit")]
        assert run([*argv, "--quiet"]) == 0
        audits.append(folder / "audit" / "audit.json")
    first = root / WEEKS[0][0]
    return AuditedWeeks(
        root=root,
        json_log=json_log,
        sample=first / "sample.json",
        labels=first / "labels.jsonl",
        decision=root / "decision.json",
        audits=audits,
    )


def leaves(document: Any, at: Path_ = ()) -> Iterator[Path_]:
    """The path of every value of `document` that holds no other: numbers, strings, booleans,
    nulls, empty lists and mappings."""
    if isinstance(document, dict) and document:
        for key, value in document.items():
            yield from leaves(value, (*at, key))
    elif isinstance(document, list) and document:
        for index, value in enumerate(document):
            yield from leaves(value, (*at, index))
    else:
        yield at


def value_at(document: Any, at: Path_) -> Any:
    for step in at:
        document = document[step]
    return document


def replaced(document: Any, at: Path_, value: Any) -> Any:
    """A copy of `document` with the value at `at` replaced by `value`."""
    copy = json.loads(json.dumps(document))
    parent = value_at(copy, at[:-1])
    parent[at[-1]] = value
    return copy


def removed(document: Any, at: Path_) -> Any:
    """A copy of `document` without the value at `at` (a key or a list's item)."""
    copy = json.loads(json.dumps(document))
    parent = value_at(copy, at[:-1])
    del parent[at[-1]]
    return copy


REFUSED = "refused in one line"
SAME = "the same figures"


def outcomes(
    mutants: Iterable[tuple[str, Any]],
    write: Callable[[Any], object],
    verb: Callable[[Path], int],
    folder: Path,
    expected: tuple[int, str, bytes],
    capsys: pytest.CaptureFixture[str],
) -> Counter[str]:
    """Each mutant written (`write`) and the verb run into a new folder under `folder`
    (`verb(out)`, its exit code): either refused in one line with exit 2 and nothing written,
    or giving the expected exit code and the very record (`expected`: the code, the record's
    file name in the folder, its bytes). How many of each; any other outcome fails, naming the
    mutant."""
    code_then, record, figures = expected
    found: Counter[str] = Counter()
    for number, (what, mutant) in enumerate(mutants):
        write(mutant)
        out = folder / f"out-{number}"
        code = verb(out)
        err = [line for line in capsys.readouterr().err.splitlines() if line]
        if code == EXIT_INPUT:
            assert len(err) == 1 and err[0].startswith("judge-audit: error: "), (what, err)
            assert not out.exists(), what
            found[REFUSED] += 1
        else:
            assert code == code_then, (what, err)
            assert (out / record).read_bytes() == figures, what
            found[SAME] += 1
    return found
