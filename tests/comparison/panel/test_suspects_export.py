"""The suspects end to end: listed in the report with each judge's claims, then exported and
through intake, blind labelling and promotion as new cases."""

import json
from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_OK, run
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.panel.suspects_export import KEY, OTHER_GOLD
from farejudge.comparison.report.build import build_report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.bootstrap import Resampling
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.core.drafts import content_hash, read_drafts
from farejudge.evals.dataset import load_cases
from farejudge.evals.fingerprint import case_hash
from farejudge.labelling import agreement_report, intake, promote
from farejudge.labelling.label_session import SHOWN_FIELDS, open_session
from farejudge.shared.document import markdown
from farejudge.testing.synthetic_cases import write_cases
from tests.support.browser import GUIDE
from tests.support.scripted_cases import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]


SUSPECTS = ["syn-00001", "syn-00003"]


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("suspects")
    cases_file = root / "cases.jsonl"
    write_cases(cases_file, 6)
    for model in MODELS:
        script = dict.fromkeys(SUSPECTS, "wrong")
        if model == MODELS[0]:
            script["syn-00002"] = "wrong"
        run_version("v3", script, cases_file, root / "logs", model=model, epochs=2)
    return root


@pytest.mark.slow
def test_the_report_lists_the_suspects_with_each_judges_claims(runs_dir: Path) -> None:
    report = build_report(load_runs([str(runs_dir / "logs")]), Resampling(100))
    suspects = report.panel.suspects
    assert [s.case for s in suspects] == SUSPECTS
    cases = {c.id: c for c in load_cases(runs_dir / "cases.jsonl")}
    grounded = suspects[0]
    assert grounded.gold == "grounded"
    assert [(c.model, c.epoch) for c in grounded.claims] == [(m, e) for m in MODELS for e in (1, 2)]
    claim = cases["syn-00001"].answer[:40]  # what the scripted judge flags in a grounded case
    assert all(c.verdict == "ungrounded" and c.claims == [claim] for c in grounded.claims)
    assert all(c.verdict == "grounded" and c.claims == [] for c in suspects[1].claims)
    # With no logprobs the graded score is the share of epochs saying ungrounded.
    assert grounded.p_ungrounded == {"v3": 1.0}
    assert suspects[1].p_ungrounded == {"v3": 0.0}
    text = markdown.render(sections(report, evaluate(report.verdicts, report.runs, set())))
    assert (
        f"| syn-00001 | {cases['syn-00001'].category} | grounded | v3 (of 1) | v3 1.00 | "
        f"v3 mockllm/judge-a: ungrounded: '{claim}' (2 epochs) / " in text
    )


@pytest.mark.slow
def test_the_suspects_go_through_intake_labelling_and_promotion_as_new_cases(
    runs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "suspects"
    argv = [str(runs_dir / "logs"), "--out", str(tmp_path / "report"), "--quiet"]
    assert run([*argv, "--resamples", "100", "--suspects-out", str(out)]) == EXIT_OK
    err = capsys.readouterr().err
    assert f"suspects: 2 written to {out} for blind re-labelling" in err
    key = {entry["draft_id"]: entry for entry in json.loads((out / KEY).read_text("utf-8"))}
    assert sorted(e["gold_case"] for e in key.values()) == SUSPECTS

    drafts = tmp_path / "work" / "drafts.jsonl"
    files = sorted(p for p in out.glob("*.jsonl") if p.name != OTHER_GOLD)
    for path in files:
        command = f"judge-intake {path} --category {path.stem} --gold {out / OTHER_GOLD}"
        assert command in err
        args = [str(path), "--category", path.stem, "--gold", str(out / OTHER_GOLD)]
        assert intake.main([*args, "--out", str(drafts)]) == 0
    made = read_drafts(drafts)
    assert sorted(d.id for d in made) == sorted(key)
    gold = {c.id: c for c in load_cases(runs_dir / "cases.jsonl")}
    for draft in made:
        old = gold[key[draft.id]["gold_case"]]
        assert (draft.category, content_hash(draft)) == (old.category, content_hash(old))

    # Blind: the drafts carry no verdict, and the labeller's page shows only the content.
    text = drafts.read_text(encoding="utf-8")
    for leak in ("label", "rationale", "unsupported_claims", "Says the opposite", "grounded"):
        assert leak not in text
    assert not any(suspect in d.source for d in made for suspect in SUSPECTS)

    labels = tmp_path / "work" / "labels"
    for who in ("alice", "bob"):
        session = open_session(drafts, labels / f"{who}.jsonl", who, GUIDE)
        for index, draft in enumerate(made):
            assert set(session.draft_view(index)["draft"]) == SHOWN_FIELDS
            # The labellers side with the judges: the opposite of gold.
            grounded = not gold[key[draft.id]["gold_case"]].label.grounded
            span = [{"start": 0, "end": 40, "text": draft.answer[:40]}]
            body = {"case_id": draft.id, "grounded": grounded, "spans": [] if grounded else span}
            body |= {"reason": f"{who}: checked against P1", "rules": []}
            session.submit(json.dumps(body).encode())

    agreement = tmp_path / "work" / "agreement"
    pair = [str(labels / "alice.jsonl"), str(labels / "bob.jsonl")]
    assert agreement_report.main([*pair, "--drafts", str(drafts), "--out", str(agreement)]) == 0
    into = tmp_path / "gold" / "cases"
    into.mkdir(parents=True)
    (into / "cases.jsonl").write_text((runs_dir / "cases.jsonl").read_text("utf-8"), "utf-8")
    settle = ["--drafts", str(drafts), "--agreement", str(agreement / "agreement.json")]
    assert promote.main([*settle, "--into", str(into), "--release", "relabel"]) == 0
    promoted = {c.id: c for c in load_cases(into) if c.id in key}
    assert sorted(promoted) == sorted(key)
    for draft_id, case in promoted.items():
        old = gold[key[draft_id]["gold_case"]]
        assert case.label.grounded is not old.label.grounded
        assert case_hash(case) != key[draft_id]["case_sha256"] == case_hash(old)
