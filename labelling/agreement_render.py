"""judge-agreement's report as Markdown (for people) and a record (agreement.json, for
promotion): over two annotators their pair's report with the figures among them after it, over
three or more the figures among them all and each disagreement with every label.
"""

import math
from collections import Counter, defaultdict
from typing import Any

from farejudge.core.case_schema import verdict_name
from farejudge.labelling.agreement import Agreement, Pair
from farejudge.labelling.agreement import passes as pair_passes
from farejudge.labelling.agreement_many import LEVEL, RESAMPLES, SEED, Compared, Many
from farejudge.labelling.agreement_many import passes as all_pairs_pass
from farejudge.labelling.label_match import Unmatched
from farejudge.labelling.records import Label


def figure(x: float | None) -> str:
    """A figure as the report shows it: three decimals, a dash where there is none."""
    return "—" if x is None or math.isnan(x) else f"{x:.3f}"


def number(x: float | None) -> float | None:
    """A figure as the record keeps it: null where there is none."""
    return None if x is None or math.isnan(x) else float(x)


def _pair_differs(pair: Pair) -> str:
    return "verdict differs" if not pair.verdicts_agree else "spans differ"


def _many_differ(each: Compared) -> str:
    return "verdicts differ" if not each.verdicts_agree else "spans differ"


def _unmatched_and_count(unmatched: list[tuple[str, Unmatched]], disagreements: int) -> list[str]:
    """The labels that match no case, listed, then the disagreements' heading."""
    lines: list[str] = []
    if unmatched:
        lines += [f"## Labels that match no case ({len(unmatched)})", ""]
        lines += [
            f"- {name}, label for `{each.label.case_id}`: {each.why}" for name, each in unmatched
        ]
        lines.append("")
    lines += [f"## Disagreements ({disagreements})", ""]
    if not disagreements:
        lines += ["Every compared case has the same verdict and the same spans.", ""]
    return lines


def _unmatched_record(unmatched: list[tuple[str, Unmatched]]) -> list[dict[str, str]]:
    return [
        {"annotator": name, "case_id": each.label.case_id, "kind": each.kind, "why": each.why}
        for name, each in unmatched
    ]


def render_pair_markdown(agreement: Agreement, min_kappa: float) -> str:
    """The report over two annotators: counts, the figures, each disagreement by category."""
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
        f"| Verdict agreement | {agreed} of {int(v.n)} ({figure(v.accuracy)}) |",
        f"| Cohen's kappa on `grounded` | {figure(v.kappa)} (threshold {min_kappa}: "
        f"{'pass' if pair_passes(agreement, min_kappa) else 'FAIL'}) |",
        f"| Both ungrounded / both grounded | {int(v.tp)} / {int(v.tn)} |",
        f"| Ungrounded by {a} only / by {b} only | {int(v.fn)} / {int(v.fp)} |",
        f"| Span precision: {b}'s characters inside {a}'s spans | {figure(s.precision)} |",
        f"| Span recall: {a}'s characters inside {b}'s spans | {figure(s.recall)} |",
        f"| Span F1 (character overlap) | {figure(s.f1)} |",
        "",
    ]
    disagreements = agreement.disagreements
    lines += _unmatched_and_count(agreement.unmatched, len(disagreements))
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
                f"**{p.case.id}**: {_pair_differs(p)}; rules: {rules}",
                "",
                f"> {p.case.answer}",
                "",
                label_line(a, p.a),
                label_line(b, p.b),
                "",
            ]
    return "\n".join(lines)


def render_pair_json(agreement: Agreement, min_kappa: float) -> dict[str, Any]:
    """agreement.json over two annotators."""
    v, s = agreement.verdicts, agreement.spans
    return {
        "a": agreement.a,
        "b": agreement.b,
        "min_kappa": min_kappa,
        "passes": pair_passes(agreement, min_kappa),
        "verdicts": {
            "compared": int(v.n),
            "agreement": number(v.accuracy),
            "kappa": number(v.kappa),
            # Whole labels: each cell counts cases.
            "table": {
                "both_ungrounded": int(v.tp),
                "a_only": int(v.fn),
                "b_only": int(v.fp),
                "neither": int(v.tn),
            },
        },
        "spans": {
            "precision": number(s.precision),
            "recall": number(s.recall),
            "f1": number(s.f1),
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
        "unmatched": _unmatched_record(agreement.unmatched),
    }


def label_line(name: str, label: Label) -> str:
    """One annotator's label of a case, as a disagreement lists it."""
    verdict = verdict_name(label.grounded)
    spans = "; ".join(f'"{s.text}" [{s.start}:{s.end}]' for s in label.spans)
    others = [v for v in label.response_set or [] if v != verdict]
    defensible = f", though {' and '.join(others)} is defensible" if others else ""
    return (
        f"- **{name}**: {verdict}{defensible}"
        + (f", spans {spans}" if spans else "")
        + f". {label.reason}"
    )


def fleiss_note(many: Many, fleiss: float | None) -> str:
    if fleiss is not None:
        return figure(fleiss)
    counts = sorted({len(each.labels) for each in many.compared})
    if not counts:
        return "— (no case labelled by two annotators)"
    return f"— (the compared cases have {counts[0]} to {counts[-1]} annotators, not one number)"


def render_section(many: Many, min_kappa: float) -> list[str]:
    """The figures among all the annotators, as Markdown lines."""
    lines = [f"## Among the annotators ({len(many.names)}: {', '.join(many.names)})", ""]
    if not many.compared:
        return [
            *lines,
            "No case was labelled by two annotators: alpha, kappa and Fleiss' kappa need two "
            "labels of a case.",
            "",
        ]
    found = many.figures
    alpha = found.alpha
    level = f"{LEVEL:.0%}"
    lines += [
        f"Cases labelled by two annotators or more: {len(many.compared)}.",
        "",
        "| measure | value |",
        "|---|---|",
        f"| Krippendorff's alpha (nominal) | {figure(alpha.estimate)} ({level} interval "
        f"{figure(alpha.low)} to {figure(alpha.high)}, {RESAMPLES} bootstrap resamples of "
        "cases) |",
        f"| Fleiss' kappa | {fleiss_note(many, found.fleiss_kappa)} |",
        "",
        "| annotator | mean kappa with the rest |",
        "|---|---|",
        *(
            f"| {name} | {figure(value)} |"
            for name, value in zip(many.names, found.with_rest, strict=True)
        ),
        "",
        f"| pair | cases | Cohen's kappa | span F1 | threshold {min_kappa} |",
        "|---|---|---|---|---|",
    ]
    for pair in many.pairs:
        i, j = many.names.index(pair.a), many.names.index(pair.b)
        verdict = "pass" if pair_passes(pair, min_kappa) else "FAIL"
        if not pair.pairs:
            verdict = "no case shared: left out"
        lines.append(
            f"| {pair.a} and {pair.b} | {len(pair.pairs)} | {figure(found.pairwise_kappa[i, j])} "
            f"| {figure(pair.spans.f1)} | {verdict} |"
        )
    lines.append("")
    return lines


def render_record(many: Many, min_kappa: float) -> dict[str, Any]:
    """The figures among all the annotators, for agreement.json."""
    found = many.figures
    alpha = found.alpha
    return {
        "annotators": many.names,
        "compared": len(many.compared),
        "alpha": {
            "estimate": number(alpha.estimate),
            "low": number(alpha.low),
            "high": number(alpha.high),
            "level": LEVEL,
            "resamples": RESAMPLES,
            "seed": SEED,
        },
        "fleiss_kappa": number(found.fleiss_kappa),
        "with_rest": {
            name: number(value) for name, value in zip(many.names, found.with_rest, strict=True)
        },
        "pairs": [
            {
                "a": pair.a,
                "b": pair.b,
                "compared": len(pair.pairs),
                "kappa": number(
                    found.pairwise_kappa[many.names.index(pair.a), many.names.index(pair.b)]
                ),
                "span_f1": number(pair.spans.f1),
                "passes": pair_passes(pair, min_kappa) if pair.pairs else None,
            }
            for pair in many.pairs
        ],
    }


def render_many_markdown(many: Many, min_kappa: float) -> str:
    """The report over three or more annotators: counts, the figures, each disagreement."""
    only = "; ".join(f"{name} {len(ids)}" for name, ids in many.only_one.items()) or "none"
    lines = [
        f"# Label agreement: {', '.join(many.names)}",
        "",
        f"Cases compared (two annotators or more): {len(many.compared)}; labelled by one "
        f"annotator only: {only}; stale labels (the case changed since): {len(many.stale)}; "
        f"labels that match no case (listed below): {len(many.unmatched)}.",
        "",
        f"Passes when each pair of annotators that shares a case has Cohen's kappa at least "
        f"{min_kappa}: {'pass' if all_pairs_pass(many, min_kappa) else 'FAIL'}.",
        "",
        *render_section(many, min_kappa),
    ]
    disagreements = [each for each in many.compared if not each.agreed]
    lines += _unmatched_and_count(many.unmatched, len(disagreements))
    for each in disagreements:
        rules = sorted({rule for label in each.labels for rule in label.rules})
        named = ", ".join(f"`{r}`" for r in rules) or "none given"
        lines += [
            f"**{each.case.id}** ({each.case.category}): {_many_differ(each)}; rules: {named}",
            "",
            f"> {each.case.answer}",
            "",
            *(label_line(label.annotator, label) for label in each.labels),
            "",
        ]
    return "\n".join(lines)


def render_many_json(many: Many, min_kappa: float) -> dict[str, Any]:
    """agreement.json over three or more annotators: each compared case keeps every label."""
    return {
        "annotators": many.names,
        "min_kappa": min_kappa,
        "passes": all_pairs_pass(many, min_kappa),
        "among": render_record(many, min_kappa),
        "cases": [
            {
                "id": each.case.id,
                "category": each.case.category,
                "status": "agreed" if each.agreed else "disagreed",
                "verdicts_agree": each.verdicts_agree,
                "spans_agree": each.spans_agree,
                "labels": [label.model_dump(mode="json") for label in each.labels],
            }
            for each in many.compared
        ],
        "only_one": many.only_one,
        "stale": many.stale,
        "unmatched": _unmatched_record(many.unmatched),
    }


def report(many: Many, min_kappa: float) -> tuple[str, dict[str, Any], bool]:
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
    markdown = "\n".join([render_pair_markdown(pair, min_kappa), *render_section(many, min_kappa)])
    record = {**render_pair_json(pair, min_kappa), "among": render_record(many, min_kappa)}
    return markdown, record, pair_passes(pair, min_kappa)
