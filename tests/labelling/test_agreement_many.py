"""judge-agreement over any number of annotators: the figures from farejudge.raters, today's
report kept for two, the gate over every pair, and the input it refuses."""

import json
import math
from pathlib import Path

import pytest

from farejudge.labelling.agreement import compare
from farejudge.labelling.agreement_many import Side, gather
from farejudge.labelling.agreement_report import main
from farejudge.labelling.label_file import append_label
from farejudge.labelling.records import Label
from farejudge.raters import cohen_kappa, krippendorff_alpha
from tests.support.labels import DRAFTS, KEY, alice, bob, label, write_drafts
from tests.support.paths import FIXTURES, REPO_ROOT

BEFORE = FIXTURES / "agreement_before_n"
"""judge-agreement's outputs on two annotators before it took more (alice-bob: the drafts of
tests/support/labels; gold-annotator-b: the shipped second annotator against gold)."""


def carol() -> list[Label]:
    """Carol agrees with alice but calls the stated price (9) grounded and leaves draft 0."""
    spans = {i: text for i, text in KEY.items() if i != 9}
    return [
        label(d, "carol", *([spans[i]] if i in spans else []))
        for i, d in enumerate(DRAFTS)
        if i != 0
    ]


def _files(folder: Path, **labels: list[Label]) -> list[str]:
    write_drafts(folder / "drafts.jsonl", DRAFTS)
    for name, given in labels.items():
        for one in given:
            append_label(folder / f"{name}.jsonl", one)
    return [
        *(str(folder / f"{name}.jsonl") for name in labels),
        "--drafts",
        str(folder / "drafts.jsonl"),
    ]


def test_two_files_give_todays_report_then_the_figures_among_them(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main([*_files(tmp_path, alice=alice(), bob=bob()), "--out", str(out)]) == 0
    markdown = (out / "agreement.md").read_text(encoding="utf-8")
    assert markdown.startswith((BEFORE / "alice-bob.agreement.md").read_text(encoding="utf-8"))
    assert "## Among the annotators (2: alice, bob)" in markdown
    record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    among = record.pop("among")
    before = json.loads((BEFORE / "alice-bob.agreement.json").read_text(encoding="utf-8"))
    assert record == before and list(record) == list(before)
    # Two annotators: the one pair's kappa is Cohen's, and each one's agreement with the rest.
    assert among["pairs"][0]["kappa"] == pytest.approx(record["verdicts"]["kappa"], abs=1e-12)
    assert among["with_rest"] == pytest.approx({"alice": 0.8, "bob": 0.8})


def test_the_gold_comparison_is_todays_with_the_figures_after_it(tmp_path: Path) -> None:
    labels_file = REPO_ROOT / "datasets" / "labels" / "annotator-b.jsonl"
    assert main([str(labels_file), "--gold", "datasets/cases", "--out", str(tmp_path)]) == 0
    markdown = (tmp_path / "agreement.md").read_text(encoding="utf-8")
    before = (BEFORE / "gold-annotator-b.agreement.md").read_text(encoding="utf-8")
    assert markdown.startswith(before) and len(markdown) > len(before)


def test_three_annotators_figures_are_the_raters(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = main([*_files(tmp_path, alice=alice(), bob=bob(), carol=carol()), "--out", str(out)])
    record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    many = gather(DRAFTS, [Side("alice", alice()), Side("bob", bob()), Side("carol", carol())])
    matrix = many.matrix()
    assert matrix.shape == (10, 3) and math.isnan(matrix[0, 2])
    among = record["among"]
    assert among["alpha"]["estimate"] == pytest.approx(krippendorff_alpha(matrix), abs=1e-12)
    assert among["alpha"]["low"] <= among["alpha"]["estimate"] <= among["alpha"]["high"]
    # Draft 0 has two labels, the rest three: Fleiss' kappa is not defined, and says why.
    assert among["fleiss_kappa"] is None
    assert "the compared cases have 2 to 3 annotators, not one number" in (
        out / "agreement.md"
    ).read_text(encoding="utf-8")
    sides = {"alice": alice(), "bob": bob(), "carol": carol()}
    for pair in among["pairs"]:
        a, b = pair["a"], pair["b"]
        told = compare(DRAFTS, sides[a], sides[b], a, b).verdicts.kappa
        columns = [many.names.index(a), many.names.index(b)]
        assert pair["kappa"] == pytest.approx(told, abs=1e-12)
        assert pair["kappa"] == pytest.approx(
            cohen_kappa(matrix[:, columns[0]], matrix[:, columns[1]]), abs=1e-12
        )
    # The gate is the lowest pair: bob and carol differ on two of nine cases.
    lowest = min(p["kappa"] for p in among["pairs"])
    assert lowest < 0.8 and code == 1 and record["passes"] is False
    assert (
        main(
            [
                *_files(tmp_path / "again", alice=alice(), bob=bob(), carol=carol()),
                "--min-kappa",
                str(lowest),
            ]
        )
        == 0
    )
    # Every compared case keeps every label, for judge-promote.
    by_id = {c["id"]: c for c in record["cases"]}
    assert [x["annotator"] for x in by_id[DRAFTS[1].id]["labels"]] == ["alice", "bob", "carol"]
    assert [x["annotator"] for x in by_id[DRAFTS[0].id]["labels"]] == ["alice", "bob"]
    assert by_id[DRAFTS[9].id]["status"] == "disagreed"
    assert record["only_one"] == {}


def test_one_case_set_per_labels_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, alice=alice())
    out = tmp_path / "out"
    assert main([args[0], "--gold", "datasets/cases", "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"{args[0]}: none of its 10 labelled cases is a case of datasets/cases (no id with its "
        "content hash matches): a labels file of another case set"
    ]
    assert not out.exists()


def test_two_files_from_one_annotator(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _files(tmp_path, alice=alice(), bob=bob())
    again = tmp_path / "alice-again.jsonl"
    again.write_bytes(Path(args[0]).read_bytes())
    assert main([args[0], str(again), *args[2:], "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"{again}: labels by 'alice' again (also in {args[0]}): one file each"
    ]
    assert not (tmp_path / "out").exists()


def test_a_single_annotator_is_told_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _files(tmp_path, alice=alice())
    assert main(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{args[0]}: one annotator (alice): agreement needs two or more")


def test_a_response_set_without_the_own_verdict_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _files(tmp_path, alice=alice(), bob=bob())
    lines = Path(args[1]).read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[3])  # bob's label of draft 3: ungrounded
    lines[3] = json.dumps({**record, "response_set": ["grounded"]})
    Path(args[1]).write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{args[1]}:4:") and "response_set" in line
    assert "leaves out the label's own verdict 'ungrounded'" in line


def test_no_shared_case_says_so_and_fails(tmp_path: Path) -> None:
    half = len(DRAFTS) // 2
    first = [label(d, "ana") for d in DRAFTS[:half]]
    second = [label(d, "ben") for d in DRAFTS[half:]]
    many = gather(DRAFTS, [Side("ana", first), Side("ben", second)])
    assert many.compared == [] and many.only_one == {
        "ana": [d.id for d in DRAFTS[:half]],
        "ben": [d.id for d in DRAFTS[half:]],
    }
    out = tmp_path / "out"
    assert main([*_files(tmp_path, ana=first, ben=second), "--out", str(out)]) == 1
    markdown = (out / "agreement.md").read_text(encoding="utf-8")
    assert "No case was labelled by two annotators" in markdown


def test_gold_counts_as_one_more_annotator(tmp_path: Path) -> None:
    shipped = REPO_ROOT / "datasets" / "labels" / "annotator-b.jsonl"
    other = tmp_path / "annotator-c.jsonl"
    lines = shipped.read_text(encoding="utf-8").splitlines()
    other.write_text(
        "".join(line.replace('"annotator-b"', '"annotator-c"') + "\n" for line in lines),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    assert main([str(shipped), str(other), "--gold", "datasets/cases", "--out", str(out)]) == 0
    record = json.loads((out / "agreement.json").read_text(encoding="utf-8"))
    assert record["annotators"] == ["gold", "annotator-b", "annotator-c"]
    # The 36 cases the second annotator labelled, now with three labels each: Fleiss' kappa.
    assert record["among"]["compared"] == 36
    assert record["among"]["fleiss_kappa"] == pytest.approx(1.0)
    assert record["only_one"] == {"gold": record["only_one"]["gold"]}
    assert len(record["only_one"]["gold"]) == 108
