"""Agreement between annotators: kappa on the verdict, character-overlap span scores, the CLI."""

import json
from pathlib import Path

import pytest

from farejudge.core.drafts import Draft, content_hash
from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement import compare, gold_label, passes
from farejudge.labelling.agreement_render import render_pair_markdown
from farejudge.labelling.agreement_report import main
from farejudge.labelling.label_file import append_label, read_labels
from tests.support.labels import BOB_SHORTER, DRAFTS, KEY, alice, bob, label, write_drafts
from tests.support.paths import REPO_ROOT


def test_kappa_and_span_scores_match_the_hand_count() -> None:
    agreement = compare(DRAFTS, alice(), bob(), "alice", "bob")
    v = agreement.verdicts
    assert (v.tp, v.fn, v.fp, v.tn) == (5, 1, 0, 4)
    # observed 9/10; chance: alice ungrounded 6/10, bob 5/10 → 0.6*0.5 + 0.4*0.5 = 0.5
    assert v.kappa == pytest.approx((0.9 - 0.5) / (1 - 0.5))
    alice_chars = sum(len(s) for s in KEY.values())
    bob_chars = alice_chars - len(KEY[7]) - (len(KEY[1]) - len(BOB_SHORTER))
    s = agreement.spans
    assert (s.tp, s.fn, s.fp) == (bob_chars, alice_chars - bob_chars, 0)
    assert s.precision == 1.0
    assert s.recall == pytest.approx(bob_chars / alice_chars)
    assert [(p.case.id, p.verdicts_agree) for p in agreement.disagreements] == [
        (DRAFTS[1].id, True),
        (DRAFTS[7].id, False),
    ]


def test_a_label_of_changed_content_is_stale_not_compared() -> None:
    drafts = [edited(DRAFTS[0]), *DRAFTS[1:]]
    agreement = compare(drafts, alice(), bob(), "alice", "bob")
    assert agreement.stale == [DRAFTS[0].id]
    assert len(agreement.pairs) == len(DRAFTS) - 1


def test_threshold_decides_the_exit_code(tmp_path: Path) -> None:
    drafts = tmp_path / "drafts.jsonl"
    write_drafts(drafts, DRAFTS)
    for name, labels in (("alice", alice()), ("bob", bob())):
        for one in labels:
            append_label(tmp_path / f"{name}.jsonl", one)
    args = [str(tmp_path / "alice.jsonl"), str(tmp_path / "bob.jsonl"), "--drafts", str(drafts)]
    out = tmp_path / "agreement"
    assert main([*args, "--out", str(out)]) == 0  # kappa 0.8 meets the default 0.8
    assert main([*args, "--min-kappa", "0.81"]) == 1
    record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    assert record["verdicts"]["kappa"] == pytest.approx(0.8)
    assert [c["status"] for c in record["cases"]].count("disagreed") == 2
    markdown = (out / "agreement.md").read_text(encoding="utf-8")
    # Every disagreement is shown with both annotators' reasons, under its category.
    assert "## Disagreements (2)" in markdown and "### production" in markdown
    assert markdown.count("- **alice**") == 2 and markdown.count("- **bob**") == 2


def test_one_class_only_passes_only_on_full_agreement() -> None:
    grounded = [d for i, d in enumerate(DRAFTS) if i not in KEY]
    same = compare(
        grounded, [label(d, "a") for d in grounded], [label(d, "b") for d in grounded], "a", "b"
    )
    assert same.verdicts.kappa != same.verdicts.kappa  # NaN: no chance model with one class
    assert passes(same, 0.8)
    assert not passes(compare([], [], [], "a", "b"), 0.8)


def test_shipped_second_annotator_against_gold() -> None:
    """The blind second labels of 36 shipped cases (datasets/labels/annotator-b.jsonl)."""
    labels_file = REPO_ROOT / "datasets" / "labels" / "annotator-b.jsonl"
    assert main([str(labels_file), "--gold", "datasets/cases"]) == 0
    cases = load_cases()
    agreement = compare(
        cases, [gold_label(c) for c in cases], read_labels(labels_file), "gold", "b"
    )
    assert len(agreement.pairs) >= 30 and not agreement.stale
    assert agreement.verdicts.kappa >= 0.8
    assert "Span F1" in render_pair_markdown(agreement, 0.8)


def test_gold_label_spans_select_the_claims() -> None:
    for case in load_cases():
        got = gold_label(case)
        assert [s.text for s in got.spans] == case.label.unsupported_claims
        assert all(case.answer[s.start : s.end] == s.text for s in got.spans)


def test_a_missing_labels_file_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nobody.jsonl"
    assert main([str(missing), "--gold", "datasets/cases"]) == 2
    assert capsys.readouterr().err.strip() == f"{missing}: no labels (the file is missing or empty)"


def edited(draft: Draft) -> Draft:
    """`draft` as someone fixing a typo leaves it: new content, its hash redone, its id kept."""
    changed = draft.model_copy(update={"answer": draft.answer + " (edited)"})
    return changed.model_copy(update={"content_sha256": content_hash(changed)})


def test_a_changed_case_is_told_from_a_damaged_label() -> None:
    drafts = [edited(DRAFTS[0]), *DRAFTS[1:]]
    damaged = bob()
    # One byte of the hash, after the id's digits: the label no longer matches its draft.
    digest = damaged[1].content_sha256
    damaged[1] = damaged[1].model_copy(update={"content_sha256": digest[:50] + "x" + digest[51:]})
    damaged[2] = damaged[2].model_copy(update={"case_id": damaged[2].case_id[:-1] + "x"})

    agreement = compare(drafts, alice(), damaged, "alice", "bob")

    assert agreement.stale == [DRAFTS[0].id]
    assert [(name, u.label.case_id, u.kind) for name, u in agreement.unmatched] == [
        ("bob", DRAFTS[1].id, "damaged"),
        ("bob", DRAFTS[2].id[:-1] + "x", "damaged"),
    ]
    assert agreement.only_a == [DRAFTS[2].id]
    assert len(agreement.pairs) == len(DRAFTS) - 3
    markdown = render_pair_markdown(agreement, 0.8)
    assert "stale labels (the case changed since): 1; labels that match no case" in markdown
    assert (
        f"- bob, label for `{DRAFTS[1].id}`: its content_sha256 is not a SHA-256, so the label "
        "was damaged"
    ) in markdown
