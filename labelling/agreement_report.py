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
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from farejudge.core.atomic_files import OutputError, write_together
from farejudge.core.commands import Command
from farejudge.core.drafts import content_hash, read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement import Agreement, Pair, gold_label, passes
from farejudge.labelling.agreement_many import (
    Many,
    Side,
    gather,
    label_line,
    render_many_json,
    render_many_markdown,
    render_record,
    render_section,
)
from farejudge.labelling.agreement_many import passes as all_pairs_pass
from farejudge.labelling.label_file import latest_labels, read_labels
from farejudge.labelling.records import Label, Labelled

DEFAULT_MIN_KAPPA = 0.8


def _figure(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.3f}"


def _what_differs(pair: Pair) -> str:
    return "verdict differs" if not pair.verdicts_agree else "spans differ"


def render_markdown(agreement: Agreement, min_kappa: float) -> str:
    a, b = agreement.a, agreement.b
    v, s = agreement.verdicts, agreement.spans
    agreed = int(v.tp + v.tn)
    lines = [
        f"# Label agreement: {a} vs {b}",
        "",
        f"Cases compared: {len(agreement.pairs)}; labelled only by {a}: {len(agreement.only_a)}"
        f"; only by {b}: {len(agreement.only_b)}; stale labels (the case changed since): "
        f"{len(agreement.stale)}; labels that match no case (listed below): "
        f"{len(agreement.unmatched)}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| Verdict agreement | {agreed} of {int(v.n)} ({_figure(v.accuracy)}) |",
        f"| Cohen's kappa on `grounded` | {_figure(v.kappa)} (threshold {min_kappa}: "
        f"{'pass' if passes(agreement, min_kappa) else 'FAIL'}) |",
        f"| Both ungrounded / both grounded | {int(v.tp)} / {int(v.tn)} |",
        f"| Ungrounded by {a} only / by {b} only | {int(v.fn)} / {int(v.fp)} |",
        f"| Span precision: {b}'s characters inside {a}'s spans | {_figure(s.precision)} |",
        f"| Span recall: {a}'s characters inside {b}'s spans | {_figure(s.recall)} |",
        f"| Span F1 (character overlap) | {_figure(s.f1)} |",
        "",
    ]
    if agreement.unmatched:
        lines += [f"## Labels that match no case ({len(agreement.unmatched)})", ""]
        lines += [
            f"- {name}, label for `{each.label.case_id}`: {each.why}"
            for name, each in agreement.unmatched
        ]
        lines.append("")
    disagreements = agreement.disagreements
    lines += [f"## Disagreements ({len(disagreements)})", ""]
    if not disagreements:
        lines += ["Every compared case has the same verdict and the same spans.", ""]
    by_rule = Counter(rule for p in disagreements for rule in p.rules)
    if by_rule:
        lines += ["| rule | disagreements |", "|---|---|"]
        lines += [f"| `{rule}` | {n} |" for rule, n in sorted(by_rule.items())]
        lines.append("")
    by_category: dict[str, list[Pair]] = defaultdict(list)
    for pair in disagreements:
        by_category[pair.case.category].append(pair)
    for category, pairs in sorted(by_category.items()):
        lines += [f"### {category}", ""]
        for p in pairs:
            rules = ", ".join(f"`{r}`" for r in p.rules) or "none given"
            lines += [
                f"**{p.case.id}**: {_what_differs(p)}; rules: {rules}",
                "",
                f"> {p.case.answer}",
                "",
                label_line(a, p.a),
                label_line(b, p.b),
                "",
            ]
    return "\n".join(lines)


def _number(x: float) -> float | None:
    return None if math.isnan(x) else x


def render_json(agreement: Agreement, min_kappa: float) -> dict[str, Any]:
    v, s = agreement.verdicts, agreement.spans
    return {
        "a": agreement.a,
        "b": agreement.b,
        "min_kappa": min_kappa,
        "passes": passes(agreement, min_kappa),
        "verdicts": {
            "compared": int(v.n),
            "agreement": _number(v.accuracy),
            "kappa": _number(v.kappa),
            # Whole labels: each cell counts cases.
            "table": {
                "both_ungrounded": int(v.tp),
                "a_only": int(v.fn),
                "b_only": int(v.fp),
                "neither": int(v.tn),
            },
        },
        "spans": {
            "precision": _number(s.precision),
            "recall": _number(s.recall),
            "f1": _number(s.f1),
            "characters": {"both": s.tp, "a_only": s.fn, "b_only": s.fp},
        },
        "cases": [
            {
                "id": p.case.id,
                "category": p.case.category,
                "status": "agreed" if p.agreed else "disagreed",
                "verdicts_agree": p.verdicts_agree,
                "spans_agree": p.spans_agree,
                "a": p.a.model_dump(mode="json"),
                "b": p.b.model_dump(mode="json"),
            }
            for p in agreement.pairs
        ],
        "only_a": agreement.only_a,
        "only_b": agreement.only_b,
        "stale": agreement.stale,
        "unmatched": [
            {"annotator": name, "case_id": each.label.case_id, "kind": each.kind, "why": each.why}
            for name, each in agreement.unmatched
        ],
    }


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


def _report(many: Many, min_kappa: float) -> tuple[str, dict[str, Any], bool]:
    """The Markdown, the record and whether it passes. With two annotators, today's report
    with the figures among them after it."""
    if len(many.names) > 2:
        return (
            render_many_markdown(many, min_kappa),
            render_many_json(many, min_kappa),
            all_pairs_pass(many, min_kappa),
        )
    (pair,) = many.pairs
    # After today's report, a blank line apart: today's agreement.md is its beginning.
    markdown = "\n".join([render_markdown(pair, min_kappa), *render_section(many, min_kappa)])
    record = {**render_json(pair, min_kappa), "among": render_record(many, min_kappa)}
    return markdown, record, passes(pair, min_kappa)


def run(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        cases, sides = _sides(args)
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    markdown, found, passed = _report(gather(cases, sides), args.min_kappa)
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
