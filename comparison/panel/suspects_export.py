"""The gold cases under suspicion, written for blind re-labelling through judge-intake.

`judge-compare --suspects-out DIR` writes, per category, `DIR/<category>.jsonl`: one record
per suspect in the case schema's own field names (question, prior_turns, passages, answer),
which judge-intake reads with no mapping. A record has no id, no label, no rationale and no
judge verdict, so the drafts intake makes of it carry nothing a labeller could be swayed by:
a draft's id is a hash of its content and its source the line of DIR it came from. Beside
them, for whoever settles the round, not for labellers:

- `other-gold.jsonl`: the rest of the gold set, for intake's `--gold`. A suspect is a gold
  case, and intake skips a record whose evidence is a gold case's: against the gold set
  without the suspects it drafts each one, and still skips a duplicate of any other.
- `key.json`: per draft id, the gold case it re-labels, gold's verdict, and what each judge
  said. A promoted correction is a new case (new id, new content hash); the old case is then
  taken out of the gold set by hand, so no comparison ever reads the correction as a flip.
"""

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

from farejudge.comparison.logs.frame import LogsError, Runs
from farejudge.comparison.panel.suspicion import Suspect
from farejudge.core.atomic_files import Writer, write_together
from farejudge.core.case_schema import Case
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.evals.fingerprint import case_hash
from farejudge.labelling.intake import draft_of
from farejudge.labelling.intake_mapping import IntakeMapping

OTHER_GOLD = "other-gold.jsonl"
KEY = "key.json"
DRAFT_PREFIX = "prod"
"""The id prefix judge-intake gives its drafts."""


@dataclass(frozen=True)
class Export:
    written: list[Path]
    """The files for judge-intake, one per category."""
    exported: int
    not_found: list[str]
    """Suspects no case file holds as the runs judged them, one line each."""


def _datasets(runs: Runs, suspect: Suspect) -> list[str]:
    """Where the runs that doubted `suspect` read their cases, as their logs record it."""
    chosen = runs.logs[runs.logs["version"].isin(suspect.versions)]
    keys = zip(chosen["version"].astype(str), chosen["model"].astype(str), strict=True)
    # Any of a sharded run's files will do: its shards read the same dataset.
    logs = [runs.sample_log(key, suspect.case) for key in keys]
    found = []
    for log in dict.fromkeys(logs):
        try:
            header = read_eval_log(log, header_only=True)
        except (OSError, ValueError) as err:
            raise LogsError(f"{Path(log).name}: cannot read its header: {err}") from err
        if header.eval.dataset.location:
            found.append(header.eval.dataset.location)
    return list(dict.fromkeys(found))


def _cases(location: str, cache: dict[str, dict[str, Case]]) -> dict[str, Case]:
    """The cases of one dataset location, by id; none where it is unreadable today."""
    if location not in cache:
        try:
            cache[location] = {case.id: case for case in load_cases(location)}
        except InputError:
            cache[location] = {}
    return cache[location]


def _record(case: Case) -> dict[str, Any]:
    """What a labeller may see of a case, as judge-intake reads it with no mapping."""
    return {
        "question": case.question,
        "prior_turns": [turn.model_dump(mode="json") for turn in case.prior_turns],
        "passages": [p.model_dump(mode="json", exclude={"tag"}) for p in case.passages],
        "answer": case.answer,
    }


def _key_entry(
    suspect: Suspect, case: Case, draft_id: str, file: str, line: int, location: str
) -> dict[str, Any]:
    return {
        "draft_id": draft_id,
        "file": file,
        "line": line,
        "gold_case": case.id,
        "case_file": location,
        "case_sha256": suspect.case_hash,
        "gold": case.label.model_dump(mode="json"),
        "rationale": case.rationale,
        "versions_doubting": suspect.versions,
        "judges": [asdict(claim) for claim in suspect.claims],
    }


def export_suspects(suspects: Sequence[Suspect], runs: Runs, out: Path) -> Export:
    """Write the suspects into `out`, which must be a new or empty folder. What an export
    killed before its end left is hidden, and does not count: the next export sweeps it."""
    if out.exists() and any(not p.name.startswith(".") and p.exists() for p in out.iterdir()):
        raise LogsError(f"--suspects-out {out}: not empty; give a new folder")
    cache: dict[str, dict[str, Case]] = {}
    found: list[tuple[Suspect, Case, str]] = []
    not_found = []
    for suspect in suspects:
        locations = _datasets(runs, suspect)
        match = next(
            (
                (case, location)
                for location in locations
                if (case := _cases(location, cache).get(suspect.case)) is not None
                and case_hash(case) == suspect.case_hash
            ),
            None,
        )
        if match is None:
            not_found.append(
                f"{suspect.case}: no case file holds it as the runs judged it (looked in "
                f"{', '.join(locations) or 'no recorded dataset'}): corrected already?"
            )
        else:
            found.append((suspect, *match))
    records: dict[str, list[dict[str, Any]]] = {}
    key = []
    for suspect, case, location in found:
        record = _record(case)
        lines = records.setdefault(case.category, [])
        lines.append(record)
        draft, problems = draft_of(record, IntakeMapping(), "-", case.category, DRAFT_PREFIX)
        if draft is None:
            raise LogsError(f"{case.id}: intake would refuse its record: {'; '.join(problems)}")
        file = f"{case.category}.jsonl"
        key.append(_key_entry(suspect, case, draft.id, file, len(lines), location))
    taken = {(case.id, case_hash(case)) for _, case, _ in found}
    others = {
        (case.id, case_hash(case)): case
        for cases in cache.values()
        for case in cases.values()
        if (case.id, case_hash(case)) not in taken
    }
    files = {
        f"{category}.jsonl": _lines(json.dumps(r, ensure_ascii=False) for r in lines)
        for category, lines in sorted(records.items())
    }
    written = [out / file for file in files]
    if found:
        files[OTHER_GOLD] = _lines(c.model_dump_json() for _, c in sorted(others.items()))
        files[KEY] = _lines([json.dumps(key, indent=2, ensure_ascii=False)])
        # All or none: a folder left half written would be refused as not empty next time.
        write_together(out, "suspects", files)
    return Export(written=written, exported=len(found), not_found=not_found)


def _lines(lines: Iterable[str]) -> Writer:
    """Writes each line and its end."""
    return lambda out: out.writelines(line + "\n" for line in lines)


def export_lines(export: Export, out: Path, drafts: str = "work/relabel/drafts.jsonl") -> list[str]:
    """What judge-compare prints: the count, each command to run, what was not exported."""
    if not export.exported and not export.not_found:
        return ["suspects: none to export"]
    lines = [
        f"suspects: {export.exported} written to {out} for blind re-labelling "
        f"(the key for whoever settles it: {out / KEY}; not for labellers)"
    ]
    lines += [
        f"  judge-intake {path} --category {path.stem} --gold {out / OTHER_GOLD} --out {drafts}"
        for path in export.written
    ]
    lines += [f"  not exported: {line}" for line in export.not_found]
    return lines
