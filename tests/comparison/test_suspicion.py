"""Gold under suspicion: which cases a panel confidently doubts, and their way back to labelling.

End to end, three scripted judges over six synthetic cases, two epochs: all three say the
opposite of gold on syn-00001 and syn-00003 in every epoch (the suspects); one alone is wrong
on syn-00002 (not a suspect). The export goes through judge-intake, two labellers, judge-
agreement and judge-promote, and comes out as a new case, not as the old one flipped.
"""

import json
import math
from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_OK, run
from farejudge.comparison.figures import build_report, per_case
from farejudge.comparison.gate import evaluate
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.panel.majority import build_panels
from farejudge.comparison.panel.suspects_export import KEY, OTHER_GOLD
from farejudge.comparison.panel.suspicion import MARGIN, find_suspects, wrong_side
from farejudge.comparison.report import markdown
from farejudge.comparison.report.sections import sections
from farejudge.evals.dataset import load_cases
from farejudge.evals.fingerprint import case_hash
from farejudge.labelling import agreement_report, intake, promote
from farejudge.labelling.draft_file import read_drafts
from farejudge.labelling.label_server import SHOWN_FIELDS, open_session
from farejudge.labelling.records import content_hash
from farejudge.testing.synthetic_cases import write_cases
from tests.support.browser import GUIDE
from tests.support.frame_rows import row, runs
from tests.support.scripted_cases import run_version

MODELS = ["mockllm/judge-a", "mockllm/judge-b", "mockllm/judge-c"]
SUSPECTS = ["syn-00001", "syn-00003"]


@pytest.mark.parametrize(
    ("gold", "p", "expected"),
    [
        ("ungrounded", 0.25, True),
        ("ungrounded", 0.3, False),
        ("ungrounded", 0.9, False),
        ("grounded", 0.75, True),
        ("grounded", 0.7, False),
        ("grounded", 0.1, False),
    ],
)
def test_a_graded_score_is_confidently_wrong_past_the_margin(
    gold: str, p: float, expected: bool
) -> None:
    assert MARGIN == 0.25
    assert wrong_side(gold, p) is expected


def suspects_of(rows: list[dict[str, object]]) -> list[str]:
    panels, _ = build_panels(per_case(runs(rows).samples), ["v3"], None, 50, 0)
    return [s.case for s in find_suspects(panels)]


def wrong(
    case: str, gold: int, model: str, epoch: int = 1, p_ungrounded: float = math.nan
) -> dict[str, object]:
    """One epoch of `model` saying the opposite of gold; graded by logprobs if `p_ungrounded`."""
    source = "none" if math.isnan(p_ungrounded) else "logprobs"
    return row(case, gold, 1 - gold, "v3", epoch, 0, model, p_ungrounded, source)


def test_a_suspect_has_every_member_wrong_in_every_epoch() -> None:
    every = [wrong("a-0", 1, m, e) for m in "abc" for e in (1, 2)]
    one_epoch_right = [wrong("a-1", 1, m) for m in "abc"] + [
        *[wrong("a-1", 1, m, 2) for m in "ab"],
        row("a-1", 1, 1, version="v3", model="c", epoch=2),
    ]
    failed = [wrong("a-2", 0, m) for m in "ab"] + [
        row("a-2", 0, 0, version="v3", model="c", failure=1)
    ]
    assert suspects_of(every + one_epoch_right + failed) == ["a-0"]


def test_a_graded_score_near_the_line_clears_a_case_and_one_past_it_does_not() -> None:
    rows = [wrong("g-0", 1, m, p_ungrounded=0.2) for m in "ab"]
    rows += [wrong("g-0", 1, "c")]  # no graded score: its verdict alone counts
    rows += [wrong("g-1", 1, m, p_ungrounded=0.2) for m in "ab"]
    rows += [wrong("g-1", 1, "c", p_ungrounded=0.45)]
    assert suspects_of(rows) == ["g-0"]


def test_a_derived_case_is_never_a_suspect() -> None:
    rows = [{**wrong("d-0~negation", 1, m), "relation": "negation"} for m in "abc"]
    assert suspects_of(rows) == []


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
    report = build_report(load_runs([str(runs_dir / "logs")]), resamples=100)
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
    text = markdown.render(sections(report, evaluate(report, set())))
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
