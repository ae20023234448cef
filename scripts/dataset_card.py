"""Regenerate the statistics table in datasets/README.md from datasets/cases/*.jsonl.

Usage:
    python scripts/dataset_card.py          # rewrite the table in place
    python scripts/dataset_card.py --check  # exit 1 if the table is stale
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

Case = dict[str, Any]

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "datasets"
CARD = DATA_DIR / "README.md"
START = "<!-- stats:start -->"
END = "<!-- stats:end -->"


def load_cases(data_dir: Path = DATA_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted((data_dir / "cases").glob("*.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    cases.append(json.loads(line))
    return cases


def render_stats(cases: list[Case]) -> str:
    by_cat: dict[str, list[Case]] = {}
    for case in cases:
        by_cat.setdefault(case["category"], []).append(case)

    def row(name: str, cs: list[Case]) -> str:
        g = sum(c["label"]["grounded"] for c in cs)
        mt = sum(bool(c["prior_turns"]) for c in cs)
        claims = sum(len(c["label"]["unsupported_claims"]) for c in cs)
        pas = [len(c["passages"]) for c in cs]
        share = f"{g / len(cs):.0%}" if cs else "-"
        return (f"| {name} | {len(cs)} | {g} | {len(cs) - g} | {share} | {mt} | {claims} "
                f"| {statistics.mean(pas):.2f} | {min(pas)}-{max(pas)} |")

    lines = [
        "| category | cases | grounded | ungrounded | grounded share | multi-turn "
        "| gold unsupported claims | passages/case (mean) | passages/case (range) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [row(f"`{cat}`", by_cat[cat]) for cat in sorted(by_cat)]
    lines.append(row("**all**", cases))

    agencies = Counter(p["agency"] for c in cases for p in c["passages"])
    id_prefix = Counter(c["id"].rsplit("-", 1)[0] for c in cases)
    rules = Counter(r for c in cases for r in c["rules"])
    injected = sum(
        any(r.startswith("injection-") for r in c["rules"]) for c in cases
    )
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
        f"Total passages: {sum(len(c['passages']) for c in cases)}.",
        "",
        "| rule id | cases |",
        "|---|---:|",
    ]
    lines += [f"| `{r}` | {n} |" for r, n in sorted(rules.items())]
    return "\n".join(lines)


def updated_card(card_text: str, cases: list[Case]) -> str:
    head, sep1, rest = card_text.partition(START)
    _, sep2, tail = rest.partition(END)
    if not sep1 or not sep2:
        raise SystemExit(f"{CARD}: stats markers not found")
    return f"{head}{START}\n{render_stats(cases)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the table is stale")
    args = parser.parse_args(argv)
    text = CARD.read_text(encoding="utf-8")
    new = updated_card(text, load_cases())
    if args.check:
        if new != text:
            print(f"{CARD} statistics table is stale; run python scripts/dataset_card.py",
                  file=sys.stderr)
            return 1
        print("statistics table is current")
        return 0
    if new != text:
        CARD.write_text(new, encoding="utf-8")
        print(f"updated {CARD}")
    else:
        print("statistics table already current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
