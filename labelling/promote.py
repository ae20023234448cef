"""Promotion: labelled drafts become gold cases, once two annotators agreed or a third settled it.

    judge-promote --drafts drafts.jsonl --agreement agreement/agreement.json \
        --adjudication labels/carol.jsonl --into datasets/cases --release 2026-12

A draft is promoted when the agreement record says its labels agreed (every annotator's
verdict the same, the same characters marked), or when the adjudicator's labels file holds a
label for it, which then is the gold. Its unsupported claims are the annotators' spans, its
rationale their reasons, its rules theirs; every label it was settled from (the annotators',
and the adjudicator's) is kept in the case's `annotations`, with its annotator, kind, time
and response set. A draft with no agreement record, or a disagreement nobody settled, is not
promoted and is listed. Any promoted case that fails validation stops the whole promotion;
otherwise the cases are added to `<into>/<category>.jsonl` and the agreement record is kept
as `<into>/../agreement/<release>.json` for the dataset card's agreement table.
"""

import argparse
import functools
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from farejudge.core.atomic_files import (
    OutputError,
    Writer,
    rewrite_folder,
    sweep_rewrite,
    write_text_atomic,
)
from farejudge.core.case_schema import Annotation, Case, Verdict, case_problems
from farejudge.core.commands import Command
from farejudge.core.drafts import DRAFT_FIELDS, Draft, content_hash, read_drafts
from farejudge.core.errors import InputError
from farejudge.core.text_input import read_text, shown
from farejudge.evals.dataset import case_files, load_cases
from farejudge.labelling.label_file import latest_labels, read_labels
from farejudge.labelling.records import Label


class AgreedCase(BaseModel):
    """One case of an agreement record (agreement.json's `cases`), as promotion reads it: the
    two annotators' labels as `a` and `b`, or, over three or more, every label as `labels`."""

    model_config = ConfigDict(extra="ignore")

    id: str
    status: str
    a: Label | None = None
    b: Label | None = None
    labels: list[Label] = Field(default_factory=list)

    @model_validator(mode="after")
    def _labelled(self) -> "AgreedCase":
        if len(self.every) < 2:
            raise ValueError("a compared case has two labels or more: a and b, or labels")
        return self

    @property
    def every(self) -> list[Label]:
        """Each annotator's label, in the record's order."""
        return self.labels or [label for label in (self.a, self.b) if label is not None]


class AgreementRecord(BaseModel):
    model_config = ConfigDict(extra="ignore")

    cases: list[AgreedCase]


def _one_line(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in err.errors()
    )


def _verdict(label: Label) -> Verdict:
    return Verdict(grounded=label.grounded, unsupported_claims=[s.text for s in label.spans])


def _names(labels: list[Label]) -> str:
    names = [label.annotator for label in labels]
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


def _rationale(decided: Label, record: AgreedCase) -> str:
    first, *others = record.every
    if record.status == "agreed":
        extra = "".join(f" {o.annotator}: {o.reason}" for o in others if o.reason != first.reason)
        return f"{first.reason}{extra} ({_names(record.every)} agreed)"
    reasons = " ".join(f"{label.annotator}: {label.reason}" for label in record.every)
    return f"{decided.reason} (adjudicated by {decided.annotator}; {reasons})"


def _annotation(label: Label, role: Literal["annotator", "adjudicator"]) -> Annotation:
    return Annotation(
        annotator=label.annotator,
        kind=label.kind,
        role=role,
        grounded=label.grounded,
        spans=label.spans,
        response_set=label.response_set,
        reason=label.reason,
        rules=label.rules,
        labelled_at=label.labelled_at,
    )


def case_of(draft: Draft, decided: Label, record: AgreedCase) -> Case:
    agreed = record.status == "agreed"
    every = record.every
    rules = sorted({rule for label in every for rule in label.rules}) if agreed else decided.rules
    kept = [_annotation(label, "annotator") for label in every]
    if not agreed:
        kept.append(_annotation(decided, "adjudicator"))
    return Case(
        **draft.model_dump(include={"id", "category", *DRAFT_FIELDS}),
        label=_verdict(decided),
        rationale=_rationale(decided, record),
        rules=rules,
        annotations=kept,
    )


@dataclass
class Promotion:
    cases: list[Case] = field(default_factory=list)
    unsettled: list[str] = field(default_factory=list)
    """Disagreements with no adjudication label."""
    no_record: list[str] = field(default_factory=list)
    """Drafts the agreement record does not mention."""


def decide(
    drafts: list[Draft], record: AgreementRecord, adjudication: dict[str, Label]
) -> Promotion:
    """Which drafts become cases, with which label; problems as an InputError."""
    by_id = {c.id: c for c in record.cases}
    result = Promotion()
    problems: list[str] = []
    for draft in drafts:
        entry = by_id.get(draft.id)
        if entry is None:
            result.no_record.append(draft.id)
            continue
        digest = content_hash(draft)
        if any(label.content_sha256 != digest for label in entry.every):
            problems.append(f"case {draft.id!r}: the draft changed since it was labelled")
            continue
        decided = entry.every[0] if entry.status == "agreed" else adjudication.get(draft.id)
        if decided is None:
            result.unsettled.append(draft.id)
            continue
        if decided.content_sha256 != digest:
            problems.append(f"case {draft.id!r}: the adjudication label is of other content")
            continue
        try:
            case = case_of(draft, decided, entry)
        except ValidationError as err:
            problems += [f"case {draft.id!r}: field {e['loc']}: {e['msg']}" for e in err.errors()]
            continue
        problems += [f"case {case.id!r}: field {f!r}: {msg}" for f, msg in case_problems(case)]
        result.cases.append(case)
    if problems:
        raise InputError(problems)
    return result


def promote(result: Promotion, into: Path) -> tuple[list[Path], list[str]]:
    """Add the cases to their category files, the folder swapped whole for the new one
    (`rewrite_folder`): a reader sees the gold set before the promotion or after it, never
    some categories promoted. The files written, and the cases already in the gold set as
    they are here (an earlier run of the same promotion, killed before it kept its record),
    which are left as they are."""
    existing = load_cases(into) if into.is_dir() and any(into.glob("*.jsonl")) else []
    taken = {case.id: case for case in existing}
    clashes = [
        f"case {c.id!r}: field 'id': already in {shown(into)}"
        for c in result.cases
        if c.id in taken and taken[c.id] != c
    ]
    if clashes:
        raise InputError(clashes)
    already = [c.id for c in result.cases if c.id in taken]
    adding = [c for c in result.cases if c.id not in taken]
    files = {path.stem: path for path in (case_files(into) if existing else [])}
    written: dict[str, Writer] = {}
    for category in sorted({c.category for c in adding}):
        path = files.get(category, into / f"{category}.jsonl")
        old = read_text(path).splitlines() if path.exists() else []
        lines = [line for line in old if line.strip()]
        lines += [c.model_dump_json() for c in adding if c.category == category]
        written[path.name] = functools.partial(_write_lines, lines=lines)
    if written:
        rewrite_folder(into, written)
    else:
        sweep_rewrite(into)
    return [into / name for name in written], already


def _write_lines(out: IO[str], lines: list[str]) -> None:
    out.writelines(line + "\n" for line in lines)


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge-promote", description=__doc__.splitlines()[0])
    parser.add_argument("--drafts", type=Path, required=True)
    parser.add_argument("--agreement", type=Path, required=True, help="agreement.json")
    parser.add_argument("--adjudication", type=Path, help="the third annotator's labels file")
    parser.add_argument("--into", type=Path, required=True, help="the gold set's cases folder")
    parser.add_argument("--release", required=True, help="name of this release, e.g. 2026-12")
    args = parser.parse_args(argv)
    try:
        agreement = read_text(args.agreement)
        try:
            record = AgreementRecord.model_validate_json(agreement)
        except ValidationError as err:
            raise InputError(
                [f"{args.agreement}: not an agreement record ({_one_line(err)})"]
            ) from None
        adjudication = latest_labels(read_labels(args.adjudication)) if args.adjudication else {}
        result = decide(read_drafts(args.drafts), record, adjudication)
        kept = args.into.parent / "agreement" / f"{args.release}.json"
        if kept.exists():
            raise InputError([f"{shown(kept)}: release {args.release!r} was promoted already"])
        written, already = promote(result, args.into)
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    except OutputError as err:
        print(f"judge-promote: error: {err}", file=sys.stderr)
        return 2
    write_text_atomic(kept, agreement)
    added = len(result.cases) - len(already)
    print(f"promoted {added} cases into {', '.join(shown(p) for p in written) or 'no file'}")
    if already:
        print(
            f"already in the gold set as here, left as they are ({len(already)}, an earlier run "
            f"of this promotion): {', '.join(already)}"
        )
    print(f"agreement record kept as {shown(kept)}")
    for what, ids in (
        ("unsettled disagreements", result.unsettled),
        ("no agreement record", result.no_record),
    ):
        if ids:
            print(f"not promoted, {what}: {', '.join(ids)}")
    return 0


main = Command(
    "judge-promote",
    {
        0: "the agreed drafts promoted (those not promoted named on stdout)",
        2: "input it cannot use, a release promoted already, or a gold set it cannot write: "
        "one line, the gold set as it was",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
