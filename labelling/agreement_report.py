"""The agreement between two sets of labels as Markdown (for people) and JSON (for promotion).

    judge-agreement datasets/labels/annotator-b.jsonl --gold datasets/cases
    judge-agreement labels/alice.jsonl labels/bob.jsonl --drafts drafts.jsonl --out agreement/

Prints the Markdown, writes agreement.md and agreement.json into --out, and exits 1 when
Cohen's kappa on `grounded` is below --min-kappa (for CI), 2 on unusable input.
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
from farejudge.core.drafts import read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement import Agreement, Pair, compare, gold_label
from farejudge.labelling.label_file import read_labels
from farejudge.labelling.records import Label, Labelled

DEFAULT_MIN_KAPPA = 0.8


def passes(agreement: Agreement, min_kappa: float) -> bool:
    """Kappa at least the threshold; undefined kappa (one class only) passes only when every
    verdict agrees."""
    if not agreement.pairs:
        return False
    verdicts = agreement.verdicts
    if math.isnan(verdicts.kappa):
        return verdicts.accuracy == 1
    return verdicts.kappa >= min_kappa


def _figure(x: float) -> str:
    return "—" if math.isnan(x) else f"{x:.3f}"


def _label_line(name: str, label: Label) -> str:
    verdict = "grounded" if label.grounded else "ungrounded"
    spans = "; ".join(f'"{s.text}" [{s.start}:{s.end}]' for s in label.spans)
    return f"- **{name}**: {verdict}" + (f", spans {spans}" if spans else "") + f". {label.reason}"


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
                _label_line(a, p.a),
                _label_line(b, p.b),
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


def _sides(args: argparse.Namespace) -> tuple[list[Labelled], list[tuple[str, list[Label]]]]:
    """The cases, and the two sides' (name, labels)."""
    sides = []
    for path in args.labels:
        labels = read_labels(path)
        sides.append((annotator_of(path, labels), labels))
    cases: list[Labelled]
    if args.gold is not None:
        gold = load_cases(args.gold)
        cases = list(gold)
        sides.insert(0, ("gold", [gold_label(c) for c in gold]))
    else:
        cases = list(read_drafts(args.drafts))
    if len(sides) != 2:
        raise InputError(["give two labels files with --drafts, or one with --gold"])
    return cases, sides


def run(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judge-agreement", description=__doc__.splitlines()[0])
    parser.add_argument("labels", nargs="+", type=Path, help="annotators' labels files")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--drafts", type=Path, help="the drafts the labels are of")
    where.add_argument("--gold", type=Path, help="compare one labels file with the gold set")
    parser.add_argument("--out", type=Path, help="folder for agreement.md and agreement.json")
    parser.add_argument("--min-kappa", type=float, default=DEFAULT_MIN_KAPPA)
    args = parser.parse_args(argv)
    try:
        cases, ((a, la), (b, lb)) = _sides(args)
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    agreement = compare(cases, la, lb, a, b)
    markdown = render_markdown(agreement, args.min_kappa)
    print(markdown)
    if args.out is not None:
        record = json.dumps(render_json(agreement, args.min_kappa), indent=2, ensure_ascii=False)
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
    return 0 if passes(agreement, args.min_kappa) else 1


main = Command(
    "judge-agreement",
    {
        0: "Cohen's kappa on grounded meets --min-kappa",
        1: "it is below --min-kappa (for CI)",
        2: "input it cannot use, or --out it cannot write: one line naming the file and the place",
    },
    run,
)

if __name__ == "__main__":
    sys.exit(main())
