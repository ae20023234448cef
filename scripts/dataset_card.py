"""Regenerate the generated parts of datasets/README.md.

From the `Case` model (core/case_schema.py): the `dataset_info` in the front matter and the
schema table. From the cases (datasets/cases/*.jsonl, read by the project's loader): the
statistics tables. From the agreement records (datasets/agreement/*.json, written by
judge-agreement and kept by judge-promote): the agreement table. Each part sits between its
own two markers; the rest of the card is written by hand.

Usage:
    python scripts/dataset_card.py          # rewrite the generated parts in place
    python scripts/dataset_card.py --check  # exit 1 if any of them is stale

Exit 2: a case file is unusable (each problem one line, as the eval reports it).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import yaml
from datasets import DatasetInfo
from datasets.info import DatasetInfosDict
from generated_page import replace_between
from huggingface_hub import DatasetCardData

from farejudge.core.case_schema import Case, case_features
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "datasets"
CARD = DATA_DIR / "README.md"
# YAML comments: the markers must not change what the front matter says.
INFO_MARKERS = ("# dataset_info:start", "# dataset_info:end")
SCHEMA_MARKERS = ("<!-- schema:start -->", "<!-- schema:end -->")
STATS_MARKERS = ("<!-- stats:start -->", "<!-- stats:end -->")
AGREEMENT_MARKERS = ("<!-- agreement:start -->", "<!-- agreement:end -->")
AGREEMENT_DIR = DATA_DIR / "agreement"


def render_dataset_info() -> str:
    """`case_features()` as the `dataset_info` the `datasets` library itself writes into a card."""
    card_data = DatasetCardData()
    infos = DatasetInfosDict({"default": DatasetInfo(features=case_features())})
    infos.to_dataset_card_data(card_data)
    info = {"dataset_info": card_data["dataset_info"]}
    text: str = yaml.safe_dump(info, sort_keys=False, allow_unicode=True)
    return text.rstrip("\n")


def render_schema() -> str:
    """One row per field of `Case`, nested fields included, from the model's JSON schema."""
    schema = Case.model_json_schema()
    defs: dict[str, Any] = schema.get("$defs", {})

    def resolved(node: dict[str, Any]) -> dict[str, Any]:
        ref = node.get("$ref")
        return node if ref is None else {**defs[ref.rsplit("/", 1)[-1]], **node}

    def kind(node: dict[str, Any]) -> str:
        node = resolved(node)
        present = [each for each in node.get("anyOf", []) if each.get("type") != "null"]
        if present:
            return f"{' or '.join(kind(each) for each in present)}, or null"
        if "format" in node:
            return f"{node['type']} ({node['format']})"
        if "enum" in node:
            return " or ".join(f"`{value}`" for value in node["enum"])
        if node["type"] == "array":
            text = f"list of {kind(node['items'])}"
            return f"non-empty {text}" if node.get("minItems", 0) >= 1 else text
        if "pattern" in node:
            return f"{node['type']} matching `{node['pattern']}`"
        if node.get("minLength", 0) >= 1:
            return f"non-empty {node['type']}"
        return str(node["type"])

    def rows(properties: dict[str, Any], prefix: str) -> list[str]:
        out: list[str] = []
        for name, node in properties.items():
            cells = [f"`{prefix}{name}`", kind(node), node["description"]]
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
            inner = resolved(node)
            if "anyOf" in inner:
                continue
            if inner["type"] == "object":
                out += rows(inner["properties"], f"{prefix}{name}.")
            elif inner["type"] == "array" and resolved(inner["items"]).get("type") == "object":
                out += rows(resolved(inner["items"])["properties"], f"{prefix}{name}[].")
        return out

    return "\n".join(
        ["| field | type | meaning |", "|---|---|---|", *rows(schema["properties"], "")]
    )


def render_stats(cases: list[Case]) -> str:
    by_cat: dict[str, list[Case]] = {}
    for case in cases:
        by_cat.setdefault(case.category, []).append(case)

    def row(name: str, cs: list[Case]) -> str:
        g = sum(c.label.grounded for c in cs)
        mt = sum(bool(c.prior_turns) for c in cs)
        claims = sum(len(c.label.unsupported_claims) for c in cs)
        pas = [len(c.passages) for c in cs]
        share = f"{g / len(cs):.0%}" if cs else "-"
        return (
            f"| {name} | {len(cs)} | {g} | {len(cs) - g} | {share} | {mt} | {claims} "
            f"| {statistics.mean(pas):.2f} | {min(pas)}-{max(pas)} |"
        )

    lines = [
        "| category | cases | grounded | ungrounded | grounded share | multi-turn "
        "| gold unsupported claims | passages/case (mean) | passages/case (range) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [row(f"`{cat}`", by_cat[cat]) for cat in sorted(by_cat)]
    lines.append(row("**all**", cases))

    agencies = Counter(p.agency for c in cases for p in c.passages)
    id_prefix = Counter(c.id.rsplit("-", 1)[0] for c in cases)
    rules = Counter(r for c in cases for r in c.rules)
    injected = sum(any(r.startswith("injection-") for r in c.rules) for c in cases)
    lines += [
        "",
        "| agency | passages citing it |",
        "|---|---:|",
    ]
    lines += [f"| {a} | {n} |" for a, n in sorted(agencies.items())]
    lines += [
        "",
        "| id prefix | cases |",
        "|---|---:|",
    ]
    lines += [f"| `{p}` | {n} |" for p, n in sorted(id_prefix.items())]
    lines += [
        "",
        f"Distinct rule ids used: {len(rules)}. Cases with injected text: {injected}. "
        f"Total passages: {sum(len(c.passages) for c in cases)}.",
        "",
        "| rule id | cases |",
        "|---|---:|",
    ]
    lines += [f"| `{r}` | {n} |" for r, n in sorted(rules.items())]
    return "\n".join(lines)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def render_agreement(records: dict[str, dict[str, Any]]) -> str:
    """One row per agreement record kept in datasets/agreement/ (judge-agreement's JSON)."""
    lines = [
        "| release | labels compared | cases | verdict agreement | Cohen's kappa "
        "| span precision | span recall | span F1 | disagreements |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for release, r in sorted(records.items()):
        disagreed = sum(c["status"] == "disagreed" for c in r["cases"])
        if "verdicts" not in r:
            # Three annotators or more: no one pair's table; the lowest pair's kappa, as the
            # gate reads it, and each case's verdicts all alike or not.
            among, cases = r["among"], r["cases"]
            kappas = [p["kappa"] for p in among["pairs"] if p["kappa"] is not None]
            alike = sum(c["verdicts_agree"] for c in cases) / len(cases) if cases else None
            lowest = f"lowest pair {_figure(min(kappas))}" if kappas else "—"
            lines.append(
                f"| {release} | {', '.join(r['annotators'])} | {among['compared']} "
                f"| {_figure(alike)} | {lowest} | — | — | — | {disagreed} |"
            )
            continue
        verdicts, spans = r["verdicts"], r["spans"]
        lines.append(
            f"| {release} | {r['a']} vs {r['b']} | {verdicts['compared']} "
            f"| {_figure(verdicts['agreement'])} | {_figure(verdicts['kappa'])} "
            f"| {_figure(spans['precision'])} | {_figure(spans['recall'])} "
            f"| {_figure(spans['f1'])} | {disagreed} |"
        )
    return "\n".join(lines)


def agreement_records() -> dict[str, dict[str, Any]]:
    return {
        path.stem: json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(AGREEMENT_DIR.glob("*.json"))
    }


def _replaced(text: str, markers: tuple[str, str], body: str) -> str:
    return replace_between(text, *markers, body, str(CARD))


def updated_card(card_text: str, cases: list[Case]) -> str:
    text = _replaced(card_text, INFO_MARKERS, render_dataset_info())
    text = _replaced(text, SCHEMA_MARKERS, render_schema())
    text = _replaced(text, STATS_MARKERS, render_stats(cases))
    return _replaced(text, AGREEMENT_MARKERS, render_agreement(agreement_records()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the card is stale")
    args = parser.parse_args(argv)
    try:
        cases = load_cases(DATA_DIR / "cases")
    except InputError as err:
        print(err, file=sys.stderr)
        return 2
    text = CARD.read_text(encoding="utf-8")
    new = updated_card(text, cases)
    if args.check:
        if new != text:
            print(
                f"{CARD}: the generated parts are stale; run python scripts/dataset_card.py",
                file=sys.stderr,
            )
            return 1
        print("dataset card is current")
        return 0
    if new != text:
        CARD.write_text(new, encoding="utf-8")
        print(f"updated {CARD}")
    else:
        print("dataset card already current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
