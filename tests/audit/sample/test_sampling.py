"""The estimate draws the sample again from what sample.json records and refuses any
difference (issue 62): each edit the failure drills made, then a few hundred random ones.

Each refusal is one line naming sample.json and the first difference, exit 2, nothing written;
an edit that changes nothing the draw depends on gives the same audit.json as the file it
came from. Run with `-s` to see the mutants' outcomes.
"""

import dataclasses
import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from farejudge.audit.inputs.judged import read_judged
from farejudge.audit.sample.sampling import check_drawn
from farejudge.audit.stats.design import ESCALATED, FLAGGED, PASSED, AuditSample, strata_by_verdict
from farejudge.core.errors import InputError
from farejudge.testing.production_runs import judge_says
from tests.support.audit_runs import index_of, judge_period, label_sample
from tests.support.audit_samples import (
    Week,
    draw,
    edit,
    estimate,
    figures,
    judged_week,
    mutant_text,
    refusal,
)

COUNT = 80
SIZE = 30
FLAGGED_DRAWS = 14
MUTANTS = 120


@pytest.fixture(scope="module")
def week(tmp_path_factory: pytest.TempPathFactory) -> Week:
    return judged_week(tmp_path_factory.mktemp("week"), COUNT)


def _stratified(week: Week, out: Path) -> AuditSample:
    return draw(week, out, "--judged", str(week.logs), "--flagged", str(FLAGGED_DRAWS), size=SIZE)


def _refused(week: Week, folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line the estimate refuses folder's sample.json with, having written nothing."""
    line = refusal(
        estimate(week, folder / "sample.json", folder / "labels.jsonl", folder / "audit"), capsys
    )
    assert line.startswith(f"{folder / 'sample.json'}: ")
    assert not (folder / "audit").exists()
    return line


@pytest.mark.slow
def test_an_edited_seed_is_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = draw(week, tmp_path, size=SIZE, seed=5)
    edit(tmp_path / "sample.json", lambda record: record.update(seed=6))
    line = _refused(week, tmp_path, capsys)
    again = draw(week, tmp_path / "six", size=SIZE, seed=6)
    first = next(i for i, (a, b) in enumerate(zip(sample.ids, again.ids, strict=True)) if a != b)
    assert line.startswith(
        f"{tmp_path / 'sample.json'}: ids[{first}] is {sample.ids[first]!r}, but its seed 6 "
        f"draws {again.ids[first]!r} from the drafts the logs judged"
    )


@pytest.mark.slow
def test_sampled_drafts_swapped_for_others_are_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = draw(week, tmp_path / "drawn", size=SIZE)
    judged = read_judged([str(week.logs)])
    flagged = {str(d) for d, v in zip(judged.ids, judged.verdict, strict=True) if v == 1}
    passed = {str(d) for d, v in zip(judged.ids, judged.verdict, strict=True) if v == 0}
    out = [d for d in sample.ids if d in flagged][:6]
    into = sorted(passed - set(sample.ids))[:6]
    assert len(out) == len(into) == 6
    swapped = dict(zip(out, into, strict=True))
    ids = tuple(swapped.get(d, d) for d in sample.ids)
    cherry = sample.model_copy(update={"ids": ids})
    tmp_path.joinpath("sample.json").write_text(cherry.model_dump_json(), encoding="utf-8")
    # Labels of the drafts the edited file names, as an annotator would give them.
    label_sample(tmp_path / "labels.jsonl", week.drafts, cherry)
    line = _refused(week, tmp_path, capsys)
    first = next(i for i, d in enumerate(sample.ids) if d in swapped)
    assert f"ids[{first}] is {swapped[sample.ids[first]]!r}, but its seed 5 draws " in line


@pytest.mark.slow
def test_an_edited_stratum_population_is_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = _stratified(week, tmp_path)
    (flagged, passed) = sample.strata
    assert (flagged.name, passed.name) == (FLAGGED, PASSED)

    def tenfold(record: dict[str, Any]) -> None:
        record["strata"][1]["population"] *= 10

    edit(tmp_path / "sample.json", tenfold)
    line = _refused(week, tmp_path, capsys)
    assert line.startswith(
        f"{tmp_path / 'sample.json'}: strata[1] is 'passed: {passed.size} of "
        f"{passed.population * 10:,}', but its seed 5 draws 'passed: {passed.size} of "
        f"{passed.population}'"
    )


@pytest.mark.slow
def test_an_edited_design_is_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stratified(week, tmp_path)
    edit(tmp_path / "sample.json", lambda record: record.update(design="uniform"))
    assert _refused(week, tmp_path, capsys) == (
        f"{tmp_path / 'sample.json'}: strata 'flagged', 'passed': a uniform sample has the one "
        "stratum 'all'"
    )


@pytest.mark.slow
def test_an_id_the_period_does_not_have_is_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = draw(week, tmp_path, size=SIZE)
    # Only the first half labelled: the edited id is an unlabelled one.
    (tmp_path / "labels.jsonl").unlink()
    label_sample(tmp_path / "labels.jsonl", week.drafts, sample, count=SIZE // 2)
    last = sample.ids[-1]
    unknown = last[:-1] + ("0" if last[-1] != "0" else "1")

    def one_digit(record: dict[str, Any]) -> None:
        record["ids"][-1] = unknown

    edit(tmp_path / "sample.json", one_digit)
    assert _refused(week, tmp_path, capsys).startswith(
        f"{tmp_path / 'sample.json'}: ids[{SIZE - 1}] is {unknown!r}, but its seed 5 draws {last!r}"
    )


@pytest.mark.slow
def test_an_id_listed_twice_is_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = draw(week, tmp_path, size=SIZE)

    def twice(record: dict[str, Any]) -> None:
        record["ids"].append(record["ids"][0])
        record["stratum_of"].append(record["stratum_of"][0])

    edit(tmp_path / "sample.json", twice)
    assert _refused(week, tmp_path, capsys).startswith(
        f"{tmp_path / 'sample.json'}: ids[{SIZE}] is {sample.ids[0]!r}, but its seed 5 draws "
        "nothing"
    )


@pytest.mark.slow
def test_the_strata_are_the_verdicts_of_the_logs_the_sample_was_drawn_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An outage puts its drafts in the flagged stratum (no verdict); judged again after the
    # sample was drawn, some of them pass. The sample's strata stay those it was drawn with.
    down = {i for i in range(COUNT) if i % 3 == 1 and judge_says(i) == "grounded"}
    outage = judged_week(tmp_path / "week", COUNT, outage=down)
    sample = _stratified(outage, tmp_path / "sample")
    numbers = index_of(outage.drafts)
    sampled_down = [d for d in sample.ids if numbers[d] in down]
    assert sampled_down, "the test needs a sampled draft the outage left unjudged"
    sample_json, labels = tmp_path / "sample" / "sample.json", tmp_path / "sample" / "labels.jsonl"
    line = refusal(estimate(outage, sample_json, labels, tmp_path / "audit"), capsys)
    assert f"sampled draft {sampled_down[0]!r}" in line and "eval-retry" in line

    judge_period(outage.drafts_file, outage.logs)
    judged = read_judged([str(outage.logs)])
    where = judged.positions(sample.ids)
    now = strata_by_verdict(judged.verdict[[where[d] for d in sample.ids]])
    assert now != list(sample.stratum_of), "judged again, a sampled draft changes stratum"
    assert estimate(outage, sample_json, labels, tmp_path / "audit") == 0
    record = json.loads((tmp_path / "audit" / "audit.json").read_text(encoding="utf-8"))
    assert [(s["name"], s["population"]) for s in record["sample"]["strata"]] == [
        (s.name, s.population) for s in sample.strata
    ]


@pytest.mark.slow
def test_an_escalated_stratum_not_drawn_in_full_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held = judged_week(tmp_path / "week", COUNT, held=True)
    sample = draw(held, tmp_path / "sample", "--judged", str(held.logs), "--escalated", size=10)
    escalated = next(s for s in sample.strata if s.name == ESCALATED)
    at = sample.stratum_of.index(ESCALATED)

    def one_left_out(record: dict[str, Any]) -> None:
        del record["ids"][at], record["stratum_of"][at]
        for stratum in record["strata"]:
            if stratum["name"] == ESCALATED:
                stratum["size"] -= 1

    edit(tmp_path / "sample" / "sample.json", one_left_out)
    where = [s.name for s in sample.strata].index(ESCALATED)
    assert _refused(held, tmp_path / "sample", capsys).startswith(
        f"{tmp_path / 'sample' / 'sample.json'}: strata[{where}] is 'escalated: "
        f"{escalated.size - 1} of {escalated.population}', but its seed 5 draws 'escalated: "
        f"{escalated.size} of {escalated.population}'"
    )


@pytest.mark.slow
def test_strata_from_a_log_not_given_are_refused(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = _stratified(week, tmp_path)
    (log,) = sample.strata_from
    edit(tmp_path / "sample.json", lambda record: record.update(strata_from=["other.eval"]))
    assert _refused(week, tmp_path, capsys) == (
        f"{tmp_path / 'sample.json'}: its strata are the verdicts of other.eval, which is not "
        f"among the logs given ({log})"
    )


@pytest.mark.slow
def test_logs_whose_drafts_do_not_hash_to_their_population_hash_are_refused(
    week: Week, tmp_path: Path
) -> None:
    sample = draw(week, tmp_path, size=SIZE)
    judged = read_judged([str(week.logs)])
    content = judged.content.copy()
    content[0] = b"0" * 64
    with pytest.raises(InputError, match=r"its drafts' content hashes hash to .* not to the "):
        check_drawn(sample, "sample.json", dataclasses.replace(judged, content=content))
    check_drawn(sample, "sample.json", judged)


def _fuzz(
    week: Week,
    root: Path,
    original: Path,
    design: str,
    capsys: pytest.CaptureFixture[str],
) -> Counter[str]:
    """The estimate over MUTANTS mutants of the sample.json at `original` (labelled in
    original's folder): each refused in one line with nothing written, or the same figures."""
    labels = original.parent / "labels.jsonl"
    assert estimate(week, original, labels, root / "baseline") == 0
    capsys.readouterr()
    baseline = figures(root / "baseline" / "audit.json")
    text = original.read_text(encoding="utf-8")
    sampled = set(json.loads(text)["ids"])
    others = sorted(d.id for d in week.drafts if d.id not in sampled)
    rng = random.Random(62)
    outcomes: Counter[str] = Counter()
    for number in range(MUTANTS):
        folder = root / f"mutant-{number}"
        folder.mkdir()
        mutant = mutant_text(text, others, rng)
        (folder / "sample.json").write_text(mutant, encoding="utf-8")
        code = estimate(week, folder / "sample.json", labels, folder / "audit")
        err = capsys.readouterr().err
        if code == 0:
            assert figures(folder / "audit" / "audit.json") == baseline, mutant
            outcomes["the same figures" + (" (the same text)" if mutant == text else "")] += 1
            continue
        lines = err.splitlines()
        assert code == 2 and len(lines) == 1, (mutant, err)
        assert lines[0].startswith(f"judge-audit: error: {folder / 'sample.json'}"), lines
        assert not (folder / "audit").exists()
        outcomes["refused in one line"] += 1
    print(f"\n{design} sample.json, {MUTANTS} mutants: {dict(sorted(outcomes.items()))}")
    return outcomes


@pytest.mark.slow
def test_mutants_of_a_uniform_sample_are_refused_or_change_nothing(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draw(week, tmp_path / "sample", size=SIZE)
    outcomes = _fuzz(week, tmp_path, tmp_path / "sample" / "sample.json", "uniform", capsys)
    assert outcomes["refused in one line"] >= MUTANTS // 2


@pytest.mark.slow
def test_mutants_of_a_stratified_sample_are_refused_or_change_nothing(
    week: Week, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stratified(week, tmp_path / "sample")
    outcomes = _fuzz(week, tmp_path, tmp_path / "sample" / "sample.json", "stratified", capsys)
    assert outcomes["refused in one line"] >= MUTANTS // 2
