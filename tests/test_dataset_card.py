"""Checks on the gold dataset in datasets/ and its card (datasets/README.md)."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA_DIR = ROOT / "datasets"
CARD = DATA_DIR / "README.md"
CORPUS = DATA_DIR / "corpus"

CASE_KEYS = {"id", "category", "question", "prior_turns", "passages", "answer", "label",
             "rationale", "rules"}
Case = dict[str, Any]
Doc = tuple[dict[str, str], dict[str, str]]
PASSAGE_KEYS = {"tag", "agency", "title", "section", "url", "fetched", "text"}


def _load_script() -> ModuleType:
    script = ROOT / "scripts" / "dataset_card.py"
    spec = importlib.util.spec_from_file_location("dataset_card", script)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    out: list[Case] = []
    for path in sorted((DATA_DIR / "cases").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                case = json.loads(line)
                case["_file"] = path.stem
                out.append(case)
    return out


def _parse_doc(path: Path) -> Doc:
    raw = path.read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n(.*)", raw, re.S)
    assert m, f"{path}: no front matter"
    meta: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = json.loads(value.strip())
    sections: dict[str, str] = {}
    for chunk in re.split(r"(?m)^## ", m.group(2))[1:]:
        head, _, body = chunk.partition("\n")
        sections[head.strip()] = body.strip()
    return meta, sections


@pytest.fixture(scope="module")
def corpus_by_url() -> dict[str, Doc]:
    docs: dict[str, Doc] = {}
    for path in sorted(CORPUS.rglob("*.md")):
        meta, sections = _parse_doc(path)
        assert meta["url"] not in docs, f"duplicate url {meta['url']}"
        docs[meta["url"]] = (meta, sections)
    return docs


def test_no_init_py_shadowing_datasets_library() -> None:
    assert not (DATA_DIR / "__init__.py").exists()


def test_stats_table_is_current() -> None:
    mod = _load_script()
    assert mod.main(["--check"]) == 0, "run: python scripts/dataset_card.py"


def test_load_dataset_on_folder_yields_schema(cases: list[Case]) -> None:
    import datasets
    from evals.case_schema import FEATURES

    ds = datasets.load_dataset(str(DATA_DIR), split="test")
    assert ds.num_rows == len(cases)
    # The card declares the loader's own schema, `fetched` as a date (a string column would
    # come back as "2026-08-01 00:00:00" from the JSON reader's timestamp inference).
    assert ds.features == FEATURES
    by_id = {c["id"]: c for c in cases}
    for row in ds:
        record = by_id[row["id"]]
        # `datasets` decides the Python type of a date32 value (a `datetime.date` in 5.x); only its
        # ISO date text has to match the record.
        assert [str(p["fetched"])[:10] for p in row["passages"]] == [
            p["fetched"] for p in record["passages"]
        ]
        assert row["label"] == record["label"]
        assert row["answer"] == record["answer"]


def test_record_schema(cases: list[Case]) -> None:
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), "ids must be unique across files"
    for c in cases:
        cid = c["id"]
        assert set(c) - {"_file"} == CASE_KEYS, cid
        assert c["category"] == c["_file"], cid
        assert re.fullmatch(r"[a-z]+-\d{3}", cid), cid
        for key in ("id", "category", "question", "answer", "rationale"):
            assert isinstance(c[key], str) and c[key].strip(), (cid, key)
        assert isinstance(c["prior_turns"], list)
        for t in c["prior_turns"]:
            assert set(t) == {"role", "content"} and t["role"] in {"user", "assistant"}, cid
        assert c["passages"], cid
        tags = [p["tag"] for p in c["passages"]]
        assert tags == [f"P{i}" for i in range(1, len(tags) + 1)], cid
        for p in c["passages"]:
            assert set(p) == PASSAGE_KEYS, cid
            assert all(isinstance(v, str) for v in p.values()), cid
            assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", p["fetched"]), cid
        label = c["label"]
        assert set(label) == {"grounded", "unsupported_claims"}, cid
        assert isinstance(label["grounded"], bool), cid
        assert label["grounded"] == (not label["unsupported_claims"]), cid
        assert isinstance(c["rules"], list) and c["rules"], cid
        assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r) for r in c["rules"]), cid


def test_case_counts_and_balance(cases: list[Case]) -> None:
    assert len(cases) >= 120
    by_cat: dict[str, int] = {}
    for c in cases:
        by_cat[c["category"]] = by_cat.get(c["category"], 0) + 1
    expected = {
        "supported", "price", "age", "document", "process-date", "cross-class", "silence",
        "hedge", "provenance", "conv", "real-world", "multi-passage", "injection", "partial",
    }
    assert set(by_cat) == expected
    assert all(n >= 8 for n in by_cat.values()), by_cat
    share = sum(c["label"]["grounded"] for c in cases) / len(cases)
    assert 0.35 <= share <= 0.65, share


def test_anchor_cases_present(cases: list[Case]) -> None:
    by_id = {c["id"]: c for c in cases}
    assert by_id["conv-004"]["category"] == "conv" and by_id["conv-004"]["prior_turns"]
    assert by_id["conv-004"]["label"]["grounded"] is True
    assert by_id["fresh-001"]["category"] == "provenance"
    assert by_id["fresh-001"]["label"]["grounded"] is True
    conv_ctx = [c for c in cases if "conv-context" in c["rules"]]
    fresh = [c for c in cases if c["id"].startswith("fresh-")]
    for group in (conv_ctx, fresh):
        assert len(group) >= 6
        assert {c["label"]["grounded"] for c in group} == {True, False}


def test_gold_claims_are_verbatim(cases: list[Case]) -> None:
    for c in cases:
        for claim in c["label"]["unsupported_claims"]:
            assert claim and claim in c["answer"], (c["id"], claim)


def test_every_rule_is_defined_in_card(cases: list[Case]) -> None:
    card = CARD.read_text(encoding="utf-8")
    section = card.split("## Rule vocabulary", 1)[1].split("\n## ", 1)[0]
    defined = set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M))
    used = {r for c in cases for r in c["rules"]}
    assert used <= defined, sorted(used - defined)


def test_passages_are_verbatim_from_corpus(
    cases: list[Case], corpus_by_url: dict[str, Doc]
) -> None:
    for c in cases:
        for p in c["passages"]:
            assert p["url"] in corpus_by_url, (c["id"], p["url"])
            meta, sections = corpus_by_url[p["url"]]
            for key in ("agency", "title", "url", "fetched"):
                assert p[key] == meta[key], (c["id"], p["tag"], key)
            assert p["section"] in sections, (c["id"], p["tag"], p["section"])
            assert p["text"] in sections[p["section"]], (c["id"], p["tag"])


def test_corpus_urls_use_reserved_example_domains(corpus_by_url: dict[str, Doc]) -> None:
    agencies = {meta["agency"] for meta, _ in corpus_by_url.values()}
    assert len(agencies) >= 3
    for url in corpus_by_url:
        assert re.match(r"https://[a-z0-9.-]+\.example/", url), url
