"""Intake: the assistant's logs in, draft cases out, ready for blind labelling.

    judge-intake assistant.log.jsonl --mapping mapping.toml --out labelling/drafts.jsonl

Each log record becomes a draft in the case schema, with no label, a stable id derived from
its content hash, and the file:line it came from. A record whose answer and passages are
those of a gold case is skipped, as is one whose content is already in the drafts file; both
are counted. Every bad record is reported, one line each, and then nothing is written.

The log is read one record at a time and the drafts file is written as it goes, to a
temporary file that replaces it at the end: memory stays bounded whatever the log's size.
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from farejudge.core.atomic_files import atomic_output
from farejudge.core.case_schema import Case
from farejudge.core.commands import Command
from farejudge.core.drafts import Draft, content_hash, iter_drafts
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import FirstSeen, Report, json_values
from farejudge.core.text_input import shown
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.labelling.intake_mapping import IntakeMapping, Missing, load_mapping, pick

DEFAULT_CATEGORY = "production"
ID_HEX_DIGITS = 24
"""Hex digits of the content hash in a draft's id: 96 bits, so two of a billion drafts share
an id with odds of about 6 in a trillion. Drafts files written with 10 digits keep theirs: a
draft is known by its content, and its id is only its name."""


def evidence_key(record: Draft | Case) -> str:
    """What makes a draft the same as a gold case: the same answer over the same passages.

    Tags are left out: they only number the passages in order.
    """
    passages = [p.model_dump(exclude={"tag"}, mode="json") for p in record.passages]
    text = json.dumps([record.answer, passages], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _each(items: Any, path: str, fields: dict[str, str]) -> list[dict[str, Any]]:
    """The list at `path`, each item's fields picked; a lost path is named in full."""
    if not isinstance(items, list):
        raise Missing(f"{path} (a list)")
    picked = []
    for i, item in enumerate(items):
        try:
            picked.append({name: pick(item, sub) for name, sub in fields.items()})
        except Missing as missing:
            raise Missing(f"{path}.{i}.{missing}") from None
    return picked


def _mapped(record: Any, mapping: IntakeMapping) -> dict[str, Any]:
    """The record rearranged into the case schema's field names; `Missing` names a lost path."""
    t = mapping.turn
    turns_path = mapping.prior_turns
    turns = (
        _each(pick(record, turns_path), turns_path, {"role": t.role, "content": t.content})
        if turns_path
        else []
    )
    for turn in turns:
        if isinstance(turn["role"], str):
            turn["role"] = t.roles.get(turn["role"], turn["role"])
    passages = _each(pick(record, mapping.passages), mapping.passages, mapping.passage.model_dump())
    return {
        "question": pick(record, mapping.question),
        "prior_turns": turns,
        "passages": [{"tag": f"P{i}", **p} for i, p in enumerate(passages, start=1)],
        "answer": pick(record, mapping.answer),
    }


def draft_of(
    record: Any, mapping: IntakeMapping, where: str, category: str, prefix: str
) -> tuple[Draft | None, list[str]]:
    """One log record as a draft, or every problem with it, one line each."""
    if not isinstance(record, dict):
        return None, [f"{where}: record ?: a JSON {type(record).__name__}, not an object"]
    raw_id = _optional(record, mapping.record_id)
    who = f"record {raw_id!r}" if raw_id is not None else "record ?"
    try:
        fields = _mapped(record, mapping)
    except Missing as missing:
        return None, [f"{where}: {who}: no field {str(missing)!r} (see the intake mapping)"]
    source = where if raw_id is None else f"{where} ({raw_id})"
    provisional = {
        **fields,
        "id": "-",
        "category": category,
        "content_sha256": "-",
        "source": source,
    }
    try:
        draft = Draft.model_validate_json(json.dumps(provisional))
    except ValidationError as err:
        return None, [
            f"{where}: {who}: field {'.'.join(map(str, e['loc']))!r}: {e['msg']}"
            for e in err.errors()
        ]
    digest = content_hash(draft)
    draft_id = f"{prefix}-{digest[:ID_HEX_DIGITS]}"
    return draft.model_copy(update={"id": draft_id, "content_sha256": digest}), []


def _optional(record: Any, path: str | None) -> Any:
    try:
        return None if path is None else pick(record, path)
    except Missing:
        return None


class Lines:
    """Lines kept in order: in memory up to a megabyte, past it in an unnamed temporary file."""

    def __init__(self) -> None:
        # Closed by `close`, or with the object: it outlives any one block here.
        self._file = tempfile.SpooledTemporaryFile(  # noqa: SIM115
            max_size=1 << 20, mode="w+", encoding="utf-8"
        )
        self._count = 0

    def close(self) -> None:
        self._file.close()

    def append(self, line: str) -> None:
        self._file.write(line.replace("\n", " ") + "\n")
        self._count += 1

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        for line in self._file:
            yield line.removesuffix("\n")
        self._file.seek(0, os.SEEK_END)


@dataclass
class IntakeResult:
    records: int = 0
    drafted: int = 0
    """New drafts written."""
    gold_duplicates: Lines = field(default_factory=Lines)
    """Where each record that duplicates a gold case was (file:line → gold id)."""
    already_drafted: int = 0
    """Records whose content is in the drafts file already, or earlier in the logs."""
    lengthened: Lines = field(default_factory=Lines)
    """Each record whose id another draft holds: where it was, the id, and the longer id it
    was drafted under."""

    def close(self) -> None:
        self.gold_duplicates.close()
        self.lengthened.close()


@dataclass
class Drafted:
    """What is drafted so far: the content hashes, which decide whether a record is drafted
    already, and the ids, which a new draft must not take."""

    contents: FirstSeen = field(default_factory=FirstSeen)
    ids: FirstSeen = field(default_factory=FirstSeen)

    def add(self, draft: Draft) -> bool:
        """Whether `draft`'s content is new; it is counted as drafted from now on."""
        return self.contents.first(draft.content_sha256, 0) is None


def _own_id(draft: Draft, taken: FirstSeen) -> str | None:
    """An id for a new draft that no other draft has: its own, or failing that the whole
    content hash after the prefix; None if both are taken (a drafts file edited by hand)."""
    prefix = draft.id.removesuffix(draft.content_sha256[:ID_HEX_DIGITS])
    for candidate in (draft.id, prefix + draft.content_sha256):
        if taken.first(candidate, 0) is None:
            return candidate
    return None


def intake(
    logs: list[Path],
    mapping: IntakeMapping,
    gold: list[Case],
    drafted: Drafted,
    write: Callable[[Draft], None],
    report: Report,
    category: str = DEFAULT_CATEGORY,
    prefix: str = "prod",
) -> IntakeResult:
    """Drafts from the logs, one record at a time: each new draft goes to `write`, in log order,
    and each bad record to `report`, one line each. `drafted` holds what the drafts file
    holds and takes the new drafts; no record is held once checked."""
    gold_keys = {evidence_key(case): case.id for case in gold}
    result = IntakeResult()
    for path in logs:
        for _, where, _, record in json_values(path, "record", report):
            result.records += 1
            draft, found = draft_of(record, mapping, where, category, prefix)
            for problem in found:
                report(problem)
            if draft is None:
                continue
            if (gold_id := gold_keys.get(evidence_key(draft))) is not None:
                result.gold_duplicates.append(f"{where} → {gold_id}")
            elif not drafted.add(draft):
                result.already_drafted += 1
            elif (draft_id := _own_id(draft, drafted.ids)) is None:
                report(
                    f"{draft.source}: its id {draft.id}, and the longer one made of its whole "
                    "content hash, are other drafts' in the drafts file (was it edited?)"
                )
            else:
                if draft_id != draft.id:
                    result.lengthened.append(
                        f"{draft.source}: {draft.id} is another draft's; drafted as {draft_id}"
                    )
                    draft = draft.model_copy(update={"id": draft_id})
                result.drafted += 1
                write(draft)
    return result


class _Failed(Exception):
    """Some input was unusable; its problems are printed already."""


class _Printed:
    """Problems printed to stderr as they are found, and counted."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, problem: str) -> None:
        self.count += 1
        print(problem, file=sys.stderr)


def _into(out: IO[str], args: argparse.Namespace, mapping: IntakeMapping) -> IntakeResult:
    """The drafts file streamed through to `out`, then the logs' new drafts after it."""
    gold = load_cases(args.gold)
    problems, drafted = _Printed(), Drafted()

    def write(draft: Draft) -> None:
        out.write(draft.model_dump_json() + "\n")

    if args.out.exists():
        for draft in iter_drafts(args.out, problems, drafted.ids):
            drafted.add(draft)
            write(draft)
        if problems.count:
            raise _Failed
    result = intake(args.logs, mapping, gold, drafted, write, problems, category=args.category)
    if problems.count:
        raise _Failed
    return result


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge-intake", description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path, help="JSON Lines files of the assistant")
    parser.add_argument("--out", type=Path, required=True, help="drafts file (added to)")
    parser.add_argument("--mapping", type=Path, help="TOML: where the case fields are")
    parser.add_argument("--gold", type=Path, default=DEFAULT_CASES, help="gold case files")
    parser.add_argument("--category", default=DEFAULT_CATEGORY, help="category of the drafts")
    args = parser.parse_args(argv)
    try:
        mapping = load_mapping(args.mapping)
        # Written beside the drafts file and renamed over it only at the end: a failed or
        # killed intake leaves the drafts file as it was.
        with atomic_output(args.out) as out:
            result = _into(out, args, mapping)
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    except _Failed:
        return 2
    except OSError as err:
        # The drafts file's: a log or drafts file that cannot be read is a problem reported
        # as it is found (core.jsonl_records), and the drafts file is left as it was.
        print(
            f"judge-intake: error: cannot write {shown(args.out)}: {err.strerror or err}",
            file=sys.stderr,
        )
        return 2
    print(
        f"{result.records} records: {result.drafted} new drafts written to {shown(args.out)}"
        f", {len(result.gold_duplicates)} duplicates of gold cases skipped"
        f", {result.already_drafted} already drafted skipped"
    )
    with closing(result):
        for line in result.gold_duplicates:
            print(f"  duplicate of a gold case: {line}")
        for line in result.lengthened:
            print(f"  id lengthened: {line}")
    return 0


main = Command(
    "judge-intake",
    {
        0: "the logs' new drafts added to the drafts file (none new is no error)",
        2: "input it cannot use, or --out it cannot write: one line per problem, the drafts "
        "file as it was",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
