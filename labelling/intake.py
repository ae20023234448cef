"""Intake: the assistant's logs in, draft cases out, ready for blind labelling.

    judge-intake assistant.log.jsonl --mapping mapping.toml --out labelling/drafts.jsonl

Each log record becomes a draft in the case schema, with no label, a stable id derived from
its content hash, and the file:line it came from. A record whose answer and passages are
those of a gold case is skipped, as is one already in the drafts file; both are counted.
Every bad record is reported, one line each, and then nothing is written.
"""

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from farejudge.core.case_schema import Case
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import json_values, read_lines, shown
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.labelling.draft_file import read_drafts, write_drafts
from farejudge.labelling.intake_mapping import IntakeMapping, Missing, load_mapping, pick
from farejudge.labelling.records import Draft, content_hash

DEFAULT_CATEGORY = "production"


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
    return draft.model_copy(update={"id": f"{prefix}-{digest[:10]}", "content_sha256": digest}), []


def _optional(record: Any, path: str | None) -> Any:
    try:
        return None if path is None else pick(record, path)
    except Missing:
        return None


@dataclass
class IntakeResult:
    drafts: list[Draft] = field(default_factory=list)
    """The new drafts, in log order."""
    records: int = 0
    gold_duplicates: list[str] = field(default_factory=list)
    """Where each record that duplicates a gold case was (file:line → gold id)."""
    already_drafted: list[str] = field(default_factory=list)
    """Records whose draft is in the drafts file already, or earlier in the logs."""


def intake(
    logs: list[Path],
    mapping: IntakeMapping,
    gold: list[Case],
    existing: list[Draft],
    category: str = DEFAULT_CATEGORY,
    prefix: str = "prod",
) -> IntakeResult:
    """Drafts from the logs; an InputError listing every bad record if there is one."""
    gold_keys = {evidence_key(case): case.id for case in gold}
    seen = {draft.id for draft in existing}
    result = IntakeResult()
    problems: list[str] = []
    for path, lines in zip(logs, read_lines(logs), strict=True):
        for where, _, record in json_values(path, lines, "record", problems):
            result.records += 1
            draft, found = draft_of(record, mapping, where, category, prefix)
            problems.extend(found)
            if draft is None:
                continue
            if (gold_id := gold_keys.get(evidence_key(draft))) is not None:
                result.gold_duplicates.append(f"{where} → {gold_id}")
            elif draft.id in seen:
                result.already_drafted.append(f"{where} → {draft.id}")
            else:
                seen.add(draft.id)
                result.drafts.append(draft)
    if problems:
        raise InputError(problems)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge-intake", description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="+", type=Path, help="JSON Lines files of the assistant")
    parser.add_argument("--out", type=Path, required=True, help="drafts file (added to)")
    parser.add_argument("--mapping", type=Path, help="TOML: where the case fields are")
    parser.add_argument("--gold", type=Path, default=DEFAULT_CASES, help="gold case files")
    parser.add_argument("--category", default=DEFAULT_CATEGORY, help="category of the drafts")
    args = parser.parse_args(argv)
    try:
        existing = read_drafts(args.out) if args.out.exists() else []
        result = intake(
            args.logs,
            load_mapping(args.mapping),
            load_cases(args.gold),
            existing,
            category=args.category,
        )
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    write_drafts(args.out, [*existing, *result.drafts])
    print(
        f"{result.records} records: {len(result.drafts)} new drafts written to {shown(args.out)}"
        f", {len(result.gold_duplicates)} duplicates of gold cases skipped"
        f", {len(result.already_drafted)} already drafted skipped"
    )
    for line in result.gold_duplicates:
        print(f"  duplicate of a gold case: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
