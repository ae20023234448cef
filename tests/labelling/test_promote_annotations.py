"""judge-promote keeps every label a case was settled from: the annotators' (two, or three and
more), the adjudicator's, with their kind, time and response set."""

import json
from pathlib import Path

from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement_report import main as agreement
from farejudge.labelling.label_file import append_label
from farejudge.labelling.promote import main as promote
from farejudge.labelling.records import Label
from tests.support.labels import KEY, alice, bob, label, sample_drafts, write_drafts

DRAFTS = sample_drafts()


def _with(labels: list[Label], **changes: object) -> list[Label]:
    """Each label with `changes`; a response set is given as the other verdict, if any."""
    other = changes.pop("also", None)
    out = []
    for one in labels:
        own = "grounded" if one.grounded else "ungrounded"
        response = [own] if other is None else [own, *([other] if other != own else [])]
        out.append(one.model_copy(update={**changes, "response_set": response}))
    return [Label.model_validate(o.model_dump()) for o in out]


def _promote(folder: Path, names: dict[str, list[Label]], *extra: str) -> int:
    write_drafts(folder / "drafts.jsonl", DRAFTS)
    for name, labels in names.items():
        for one in labels:
            append_label(folder / f"{name}.jsonl", one)
    files = [str(folder / f"{name}.jsonl") for name in names]
    out = folder / "agreement"
    agreement([*files, "--drafts", str(folder / "drafts.jsonl"), "--out", str(out)])
    (folder / "cases").mkdir()
    return promote(
        [
            "--drafts",
            str(folder / "drafts.jsonl"),
            "--agreement",
            str(out / "agreement.json"),
            "--into",
            str(folder / "cases"),
            "--release",
            "2026-12",
            *extra,
        ]
    )


def test_two_annotators_and_the_adjudicator_are_kept(tmp_path: Path) -> None:
    carol = label(DRAFTS[7], "carol", KEY[7], reason="a hedged fact is a claim")
    append_label(tmp_path / "carol.jsonl", carol.model_copy(update={"kind": "expert"}))
    ana = _with(alice(), kind="skilled", also="grounded")
    ben = _with(bob(), kind="crowd")
    assert (
        _promote(
            tmp_path, {"alice": ana, "bob": ben}, "--adjudication", str(tmp_path / "carol.jsonl")
        )
        == 0
    )
    cases = {c.id: c for c in load_cases(tmp_path / "cases")}
    agreed = cases[DRAFTS[9].id].annotations
    assert [(a.annotator, a.kind, a.role) for a in agreed] == [
        ("alice", "skilled", "annotator"),
        ("bob", "crowd", "annotator"),
    ]
    assert agreed[0].response_set == ["ungrounded", "grounded"]
    assert agreed[1].response_set == ["ungrounded"]
    assert [s.text for s in agreed[0].spans] == [KEY[9]]
    assert agreed[0].labelled_at == ana[9].labelled_at
    settled = cases[DRAFTS[7].id].annotations
    assert [(a.annotator, a.grounded, a.role) for a in settled] == [
        ("alice", False, "annotator"),
        ("bob", True, "annotator"),
        ("carol", False, "adjudicator"),
    ]
    assert settled[2].kind == "expert" and settled[2].response_set is None


def test_three_annotators_are_all_kept(tmp_path: Path) -> None:
    carol = [label(d, "carol", *([KEY[i]] if i in KEY else [])) for i, d in enumerate(DRAFTS)]
    assert _promote(tmp_path, {"alice": alice(), "bob": bob(), "carol": carol}) == 0
    cases = {c.id: c for c in load_cases(tmp_path / "cases")}
    # Draft 7: bob differs and nobody settled it; draft 9: all three agreed.
    assert DRAFTS[7].id not in cases
    kept = cases[DRAFTS[9].id]
    assert [a.annotator for a in kept.annotations] == ["alice", "bob", "carol"]
    assert "alice, bob and carol agreed" in kept.rationale
    record = json.loads((tmp_path / "agreement" / "2026-12.json").read_text(encoding="utf-8"))
    assert record["annotators"] == ["alice", "bob", "carol"]
