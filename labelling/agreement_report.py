"""The agreement among annotators' labels as Markdown (for people) and JSON (for promotion).

    judge-agreement datasets/labels/annotator-b.jsonl --gold datasets/cases
    judge-agreement labels/alice.jsonl labels/bob.jsonl --drafts drafts.jsonl --out agreement/
    judge-agreement labels/alice.jsonl labels/bob.jsonl labels/carol.jsonl --drafts drafts.jsonl

Two or more labels files with --drafts, or one or more with --gold (the gold set is then one
more annotator). Prints the Markdown, writes agreement.md and agreement.json into --out, and
exits 1 when a pair of annotators' Cohen's kappa on `grounded` is below --min-kappa (for CI;
with two, their kappa), 2 on unusable input.
"""

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from farejudge.core.atomic_files import OutputError, write_together
from farejudge.core.commands import Command
from farejudge.core.drafts import content_hash, read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement import gold_label
from farejudge.labelling.agreement_many import Side, gather
from farejudge.labelling.agreement_render import report
from farejudge.labelling.label_file import latest_labels, read_labels
from farejudge.labelling.records import Label, Labelled

DEFAULT_MIN_KAPPA = 0.8


def annotator_of(path: Path, labels: list[Label]) -> str:
    names = sorted({label.annotator for label in labels})
    if not names:
        raise InputError([f"{path}: no labels (the file is missing or empty)"])
    if len(names) != 1:
        raise InputError([f"{path}: one annotator per labels file, found {', '.join(names)}"])
    return names[0]


def _of_these_cases(path: Path, labels: list[Label], cases: list[Labelled], where: Path) -> None:
    """A labels file none of whose labels is of a case here (by id and content hash) is of
    another case set: comparing it would measure nothing."""
    hashes = {case.id: content_hash(case) for case in cases}
    latest = latest_labels(labels).values()
    if not any(hashes.get(label.case_id) == label.content_sha256 for label in latest):
        raise InputError(
            [
                f"{path}: none of its {len(latest)} labelled cases is a case of {where} (no id "
                "with its content hash matches): a labels file of another case set"
            ]
        )


def _sides(args: argparse.Namespace) -> tuple[list[Labelled], list[Side]]:
    """The cases, and each annotator's labels: the gold set first where it is one of them."""
    cases: list[Labelled]
    sides: list[Side] = []
    if args.gold is not None:
        gold = load_cases(args.gold)
        cases = list(gold)
        sides.append(Side("gold", [gold_label(c) for c in gold]))
    else:
        cases = list(read_drafts(args.drafts))
    where = args.gold if args.gold is not None else args.drafts
    files: dict[str, Path] = {}
    for path in args.labels:
        labels = read_labels(path)
        name = annotator_of(path, labels)
        if name in files or (name == "gold" and args.gold is not None):
            also = files.get(name, args.gold)
            raise InputError([f"{path}: labels by {name!r} again (also in {also}): one file each"])
        _of_these_cases(path, labels, cases, where)
        files[name] = path
        sides.append(Side(name, labels))
    if len(sides) < 2:
        raise InputError(
            [
                f"{args.labels[0]}: one annotator ({sides[0].name}): agreement needs two or more "
                "(alpha and kappa compare two labels of a case); give another labels file, or "
                "--gold to compare with the gold set"
            ]
        )
    return cases, sides


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge-agreement", description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="+", type=Path, help="annotators' labels files")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--drafts", type=Path, help="the drafts the labels are of")
    where.add_argument("--gold", type=Path, help="compare the labels files with the gold set")
    parser.add_argument("--out", type=Path, help="folder for agreement.md and agreement.json")
    parser.add_argument(
        "--min-kappa",
        type=float,
        default=DEFAULT_MIN_KAPPA,
        help="the lowest Cohen's kappa each pair of annotators sharing a case must reach",
    )
    return parser


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        cases, sides = _sides(args)
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    markdown, found, passed = report(gather(cases, sides), args.min_kappa)
    print(markdown)
    if args.out is not None:
        record = json.dumps(found, indent=2, ensure_ascii=False)
        try:
            # Together: agreement.json (what judge-promote reads) and the page explaining it.
            write_together(
                args.out,
                "agreement",
                {
                    "agreement.md": lambda out: out.write(markdown + "\n"),
                    "agreement.json": lambda out: out.write(record + "\n"),
                },
            )
        except OutputError as err:
            print(f"judge-agreement: error: {err}", file=sys.stderr)
            return 2
    return 0 if passed else 1


main = Command(
    "judge-agreement",
    {
        0: "Cohen's kappa on grounded meets --min-kappa for each pair of annotators sharing a case",
        1: "a pair's kappa is below --min-kappa (for CI)",
        2: "input it cannot use (a file of another case set, one annotator's labels in two "
        "files, a single annotator), or --out it cannot write: one line naming the file and "
        "the place",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
