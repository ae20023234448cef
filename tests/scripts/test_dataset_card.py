"""Checks on the gold dataset in datasets/ and its card (datasets/README.md)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from datasets import Features, List, Value
from pydantic import Field

from farejudge.core.case_schema import Case, case_features
from farejudge.evals.dataset import load_cases
from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
DATA_DIR = ROOT / "datasets"
CASES_DIR = DATA_DIR / "cases"
CARD = DATA_DIR / "README.md"
CORPUS = DATA_DIR / "corpus"

Doc = tuple[dict[str, str], dict[str, str]]


def _load_script() -> ModuleType:
    script = ROOT / "scripts" / "dataset_card.py"
    spec = importlib.util.spec_from_file_location("dataset_card", script)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    # A fresh module each time (the tests patch it), its sibling scripts importable.
    sys.path.insert(0, str(script.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(script.parent))
    return mod


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    """The shipped cases through the project's loader: every record has passed the `Case`
    model and `case_problems` (keys, types, roles, dates, labels, verbatim claims, unique ids),
    so the tests below check only what the model does not say."""
    return load_cases(CASES_DIR)


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


def test_generated_card_parts_are_current() -> None:
    mod = _load_script()
    assert mod.main(["--check"]) == 0, "run: python scripts/dataset_card.py"


class _Wider(Case):
    note: str = Field(description="a field the card does not know yet")


@pytest.mark.parametrize("stale", ["dataset_info", "schema table", "statistics"])
def test_the_check_fails_on_each_stale_part(
    stale: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mod = _load_script()
    card = tmp_path / "README.md"
    text = CARD.read_text(encoding="utf-8")
    if stale == "dataset_info":
        wider = Features({**case_features(), "note": Value("string")})
        monkeypatch.setattr(mod, "case_features", lambda: wider)
    elif stale == "schema table":
        monkeypatch.setattr(mod, "Case", _Wider)
    else:
        start = mod.STATS_MARKERS[0]
        text = text.replace(start, f"{start}\n| a row by hand |")
    card.write_text(text, encoding="utf-8")
    monkeypatch.setattr(mod, "CARD", card)
    assert mod.main(["--check"]) == 1
    assert mod.main([]) == 0
    assert mod.main(["--check"]) == 0


def test_features_are_generated_from_the_model() -> None:
    # The hand-written declaration that the model replaced, kept here to pin the columns.
    turn = {"role": Value("string"), "content": Value("string")}
    passage = {
        "tag": Value("string"),
        "agency": Value("string"),
        "title": Value("string"),
        "section": Value("string"),
        "url": Value("string"),
        "fetched": Value("date32"),
        "text": Value("string"),
    }
    expected = Features(
        {
            "id": Value("string"),
            "category": Value("string"),
            "question": Value("string"),
            "prior_turns": List(turn),
            "passages": List(passage),
            "answer": Value("string"),
            "label": {
                "grounded": Value("bool"),
                "unsupported_claims": List(Value("string")),
            },
            "rationale": Value("string"),
            "rules": List(Value("string")),
            "annotations": List(
                {
                    "annotator": Value("string"),
                    "kind": Value("string"),
                    "role": Value("string"),
                    "grounded": Value("bool"),
                    "spans": List(
                        {"start": Value("int64"), "end": Value("int64"), "text": Value("string")}
                    ),
                    "response_set": List(Value("string")),
                    "reason": Value("string"),
                    "rules": List(Value("string")),
                    "labelled_at": Value("timestamp[us, tz=UTC]"),
                }
            ),
        }
    )
    assert expected == case_features()
    # Equal dicts may differ in order; the card's columns follow this one.
    assert repr(expected) == repr(case_features())


def test_load_dataset_on_folder_yields_schema(cases: list[Case]) -> None:
    import datasets

    ds = datasets.load_dataset(str(DATA_DIR), split="test")
    assert ds.num_rows == len(cases)
    # The card declares the model's columns, `fetched` as a date (a string column would come
    # back as "2026-08-01 00:00:00" from the JSON reader's timestamp inference).
    assert ds.features == case_features()
    by_id = {c.id: c for c in cases}
    for row in ds:
        case = by_id[row["id"]]
        # `datasets` decides the Python type of a date32 value (a `datetime.date` in 5.x); only its
        # ISO date text has to match the record.
        assert [str(p["fetched"])[:10] for p in row["passages"]] == [
            p.fetched for p in case.passages
        ]
        assert row["label"] == case.label.model_dump()
        assert row["answer"] == case.answer


def test_each_file_holds_its_category() -> None:
    for path in sorted(CASES_DIR.glob("*.jsonl")):
        assert {c.category for c in load_cases(path)} == {path.stem}, path


def test_record_conventions(cases: list[Case]) -> None:
    # The model asks for non-empty strings; the card's cases are not blank either.
    text_fields = [name for name, f in Case.model_fields.items() if f.annotation is str]
    assert text_fields, "the model has string fields"
    for c in cases:
        assert re.fullmatch(r"[a-z]+-\d{3}", c.id), c.id
        for name in text_fields:
            assert getattr(c, name).strip(), (c.id, name)
        tags = [p.tag for p in c.passages]
        assert tags == [f"P{i}" for i in range(1, len(tags) + 1)], c.id
        assert c.rules, c.id
        assert all(re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r) for r in c.rules), c.id


def test_case_counts_and_balance(cases: list[Case]) -> None:
    assert len(cases) >= 120
    by_cat: dict[str, int] = {}
    for c in cases:
        by_cat[c.category] = by_cat.get(c.category, 0) + 1
    expected = {
        "supported",
        "price",
        "age",
        "document",
        "process-date",
        "cross-class",
        "silence",
        "hedge",
        "provenance",
        "conv",
        "real-world",
        "multi-passage",
        "injection",
        "partial",
    }
    assert set(by_cat) == expected
    assert all(n >= 8 for n in by_cat.values()), by_cat
    share = sum(c.label.grounded for c in cases) / len(cases)
    assert 0.35 <= share <= 0.65, share


def test_anchor_cases_present(cases: list[Case]) -> None:
    by_id = {c.id: c for c in cases}
    assert by_id["conv-004"].category == "conv" and by_id["conv-004"].prior_turns
    assert by_id["conv-004"].label.grounded is True
    assert by_id["fresh-001"].category == "provenance"
    assert by_id["fresh-001"].label.grounded is True
    conv_ctx = [c for c in cases if "conv-context" in c.rules]
    fresh = [c for c in cases if c.id.startswith("fresh-")]
    for group in (conv_ctx, fresh):
        assert len(group) >= 6
        assert {c.label.grounded for c in group} == {True, False}


def test_every_rule_is_defined_in_card(cases: list[Case]) -> None:
    card = CARD.read_text(encoding="utf-8")
    section = card.split("## Rule vocabulary", 1)[1].split("\n## ", 1)[0]
    defined = set(re.findall(r"^\| `([a-z0-9-]+)` \|", section, re.M))
    used = {r for c in cases for r in c.rules}
    assert used <= defined, sorted(used - defined)


def test_passages_are_verbatim_from_corpus(
    cases: list[Case], corpus_by_url: dict[str, Doc]
) -> None:
    for c in cases:
        for p in c.passages:
            assert p.url in corpus_by_url, (c.id, p.url)
            meta, sections = corpus_by_url[p.url]
            for key in ("agency", "title", "url", "fetched"):
                assert getattr(p, key) == meta[key], (c.id, p.tag, key)
            assert p.section in sections, (c.id, p.tag, p.section)
            assert p.text in sections[p.section], (c.id, p.tag)


def test_corpus_urls_use_reserved_example_domains(corpus_by_url: dict[str, Doc]) -> None:
    agencies = {meta["agency"] for meta, _ in corpus_by_url.values()}
    assert len(agencies) >= 3
    for url in corpus_by_url:
        assert re.match(r"https://[a-z0-9.-]+\.example/", url), url


def test_the_agreement_table_reads_a_record_of_three_annotators(tmp_path: Path) -> None:
    from farejudge.labelling.agreement_report import main as agreement
    from farejudge.labelling.label_file import append_label
    from tests.support.labels import DRAFTS, alice, bob, write_drafts

    write_drafts(tmp_path / "drafts.jsonl", DRAFTS)
    # Carol as alice, under her own name: bob is the pair's odd one out.
    carol = [x.model_copy(update={"annotator": "carol"}) for x in alice()]
    for name, labels in (("alice", alice()), ("bob", bob()), ("carol", carol)):
        for one in labels:
            append_label(tmp_path / f"{name}.jsonl", one)
    files = [str(tmp_path / f"{name}.jsonl") for name in ("alice", "bob", "carol")]
    out = tmp_path / "out"
    agreement([*files, "--drafts", str(tmp_path / "drafts.jsonl"), "--out", str(out)])
    record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    (row,) = _load_script().render_agreement({"r1": record}).splitlines()[2:]
    # 9 of 10 cases with every verdict alike; the lowest pair (alice or carol with bob) 0.8.
    assert row == "| r1 | alice, bob, carol | 10 | 0.900 | lowest pair 0.800 | — | — | — | 2 |"
