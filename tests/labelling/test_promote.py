"""Promotion: agreed and adjudicated drafts become gold cases; everything else is refused."""

import json
from pathlib import Path

import pytest
from inspect_ai import eval

from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling.agreement import compare
from farejudge.labelling.agreement_render import render_pair_json
from farejudge.labelling.label_file import append_label
from farejudge.labelling.promote import AgreementRecord, decide, main
from farejudge.testing.scripted_judge import echo_gold, scripted_judge
from tests.support.cli import task_file
from tests.support.labels import KEY, alice, bob, label, sample_drafts, write_drafts

DRAFTS = sample_drafts()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """Drafts, the alice/bob agreement record, and carol's label settling the hedged case (7)."""
    write_drafts(tmp_path / "drafts.jsonl", DRAFTS)
    record = render_pair_json(compare(DRAFTS, alice(), bob(), "alice", "bob"), 0.8)
    (tmp_path / "agreement.json").write_text(json.dumps(record), encoding="utf-8")
    carol = label(
        DRAFTS[7],
        "carol",
        KEY[7],
        reason="a hedged fact is a claim; no passage says so",
        rules=("hedged-claim-unsupported",),
    )
    append_label(tmp_path / "carol.jsonl", carol)
    (tmp_path / "cases").mkdir()
    return tmp_path


def promote(workspace: Path, *extra: str) -> int:
    return main(
        [
            "--drafts",
            str(workspace / "drafts.jsonl"),
            "--agreement",
            str(workspace / "agreement.json"),
            "--into",
            str(workspace / "cases"),
            "--release",
            "2026-12",
            *extra,
        ]
    )


def test_agreed_and_adjudicated_cases_are_promoted(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert promote(workspace, "--adjudication", str(workspace / "carol.jsonl")) == 0
    out = capsys.readouterr().out
    # Draft 1: alice and bob marked different spans, and nobody settled it.
    assert f"unsettled disagreements: {DRAFTS[1].id}" in out
    cases = {c.id: c for c in load_cases(workspace / "cases")}
    assert set(cases) == {d.id for i, d in enumerate(DRAFTS) if i != 1}
    hedged = cases[DRAFTS[7].id]
    assert hedged.label.unsupported_claims == [KEY[7]]
    assert hedged.rules == ["hedged-claim-unsupported"]
    assert "adjudicated by carol" in hedged.rationale
    agreed = cases[DRAFTS[9].id]
    assert (
        agreed.label.unsupported_claims == [KEY[9]] and "alice and bob agreed" in agreed.rationale
    )
    assert cases[DRAFTS[0].id].label.grounded
    assert (workspace / "agreement" / "2026-12.json").exists()
    # The same release twice is refused, and the cases stay as they are.
    before = (workspace / "cases" / "production.jsonl").read_text(encoding="utf-8")
    assert promote(workspace, "--adjudication", str(workspace / "carol.jsonl")) == 2
    assert (workspace / "cases" / "production.jsonl").read_text(encoding="utf-8") == before


def test_promoted_cases_run_in_the_eval(workspace: Path) -> None:
    assert promote(workspace, "--adjudication", str(workspace / "carol.jsonl")) == 0
    cases = load_cases(workspace / "cases")
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(workspace / "cases")},
        model=scripted_judge(cases, echo_gold),
        log_dir=str(workspace / "logs"),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    assert {s.id for s in log.samples} == {c.id for c in cases}
    assert log.results is not None
    assert log.results.scores[0].metrics["verdict_accuracy"].value == 1.0


def test_without_adjudication_only_agreed_cases_are_promoted(workspace: Path) -> None:
    assert promote(workspace) == 0
    promoted = {c.id for c in load_cases(workspace / "cases")}
    assert promoted == {d.id for i, d in enumerate(DRAFTS) if i not in (1, 7)}


def test_a_draft_without_agreement_record_is_not_promoted(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((workspace / "agreement.json").read_text(encoding="utf-8"))
    record["cases"] = [c for c in record["cases"] if c["id"] != DRAFTS[0].id]
    (workspace / "agreement.json").write_text(json.dumps(record), encoding="utf-8")
    assert promote(workspace) == 0
    assert f"no agreement record: {DRAFTS[0].id}" in capsys.readouterr().out
    assert DRAFTS[0].id not in {c.id for c in load_cases(workspace / "cases")}


def test_a_case_that_fails_validation_stops_the_promotion(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((workspace / "agreement.json").read_text(encoding="utf-8"))
    # An agreed label whose span text is not in the answer (a hand-edited record).
    entry = next(c for c in record["cases"] if c["id"] == DRAFTS[9].id)
    entry["a"]["spans"][0]["text"] = "a PRTA day pass costs you $9.99"
    (workspace / "agreement.json").write_text(json.dumps(record), encoding="utf-8")
    assert promote(workspace) == 2
    err = capsys.readouterr().err
    assert f"case {DRAFTS[9].id!r}: field 'label.unsupported_claims.0'" in err
    assert not list((workspace / "cases").iterdir()), "nothing is written"
    assert not (workspace / "agreement").exists()


def test_a_changed_draft_is_refused(workspace: Path) -> None:
    record = AgreementRecord.model_validate_json((workspace / "agreement.json").read_text("utf-8"))
    edited = DRAFTS[0].model_copy(update={"answer": DRAFTS[0].answer + " Thanks!"})
    with pytest.raises(InputError, match="the draft changed since it was labelled"):
        decide([edited], record, {})


def test_an_id_already_in_the_gold_set_is_refused(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert promote(workspace) == 0
    (workspace / "agreement").joinpath("2026-12.json").unlink()
    # The gold case since edited: the draft of the same id is another case now.
    path = workspace / "cases" / "production.jsonl"
    first, *rest = path.read_text(encoding="utf-8").splitlines()
    edited = json.loads(first) | {"rationale": "Edited by hand since."}
    path.write_text("\n".join([json.dumps(edited), *rest]) + "\n", encoding="utf-8")
    before = path.read_bytes()
    capsys.readouterr()
    assert promote(workspace) == 2
    assert f"case {edited['id']!r}: field 'id': already in" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_a_promotion_killed_before_its_record_completes_when_run_again(
    workspace: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its cases in the gold set, its record not kept: the same command again keeps the
    record and leaves the cases as they are."""
    assert promote(workspace) == 0
    cases = (workspace / "cases" / "production.jsonl").read_bytes()
    (workspace / "agreement").joinpath("2026-12.json").unlink()
    capsys.readouterr()
    assert promote(workspace) == 0
    out = capsys.readouterr().out
    assert out.startswith("promoted 0 cases into no file\n")
    assert "already in the gold set as here, left as they are" in out
    assert (workspace / "cases" / "production.jsonl").read_bytes() == cases
    assert (workspace / "agreement" / "2026-12.json").exists()
