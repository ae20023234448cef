"""`-T suite=adversarial` and `-T families=`, and the generator's command: each attacked case
beside its parent, and bad input as one line (exit 2 from the command)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from farejudge.core.errors import InputError
from farejudge.core.sample_case import GoldTarget
from farejudge.evals.adversarial.derive import run
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples

GOLD = load_cases(DEFAULT_CASES)


def test_each_attacked_case_follows_its_parent_with_what_the_report_needs() -> None:
    samples, hashes = suite_samples(
        GOLD, "adversarial", load_prompt_version("v3"), ("forged_json", "master_key_opener")
    )
    ungrounded = sum(not c.label.grounded for c in GOLD)
    assert len(samples) == len(GOLD) * 2 + ungrounded == len(hashes)
    parent = None
    for sample in samples:
        meta = sample.metadata or {}
        if meta["relation"] == "gold":
            parent = sample
            continue
        assert parent is not None and meta["derived_from"] == parent.id
        assert meta["family"] == meta["relation"] and meta["family"] in {
            "forged_json",
            "master_key_opener",
        }
        assert GoldTarget.model_validate_json(str(sample.target)).label == (
            GoldTarget.model_validate_json(str(parent.target)).label
        )
        gold = json.loads(str(sample.target))["grounded"]
        assert meta["gold"] == ("grounded" if gold else "ungrounded")
        assert meta["direction"] == ("towards_ungrounded" if gold else "towards_grounded")
        assert meta["kind"] in {"forged verdict", "master key"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"suite": "adversarial", "families": ["forged_json", "nope"]},
            "-T families: unknown family 'nope'; valid families: forged_json,",
        ),
        (
            {"suite": "metamorphic", "families": "forged_json"},
            "-T families=: only with -T suite=adversarial, not 'metamorphic'",
        ),
    ],
)
def test_a_bad_families_option_is_one_line(options: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as raised:
        judge_groundedness(**options)  # type: ignore[arg-type]
    (line,) = raised.value.problems
    assert line.startswith(message)


def _grounded_only(tmp_path: Path) -> Path:
    path = tmp_path / "grounded.jsonl"
    path.write_text(
        "".join(c.model_dump_json() + "\n" for c in GOLD if c.label.grounded), encoding="utf-8"
    )
    return path


def test_a_family_that_derives_nothing_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError) as raised:
        judge_groundedness(
            dataset=str(_grounded_only(tmp_path)), suite="adversarial", families="master_key_opener"
        )
    assert raised.value.problems == [
        "-T families: master_key_opener derived nothing from the 63 cases (master_key_opener: it "
        "pushes only "
        "towards grounded; the parent is grounded)"
    ]


def test_the_command_prints_each_family_and_writes_the_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "attacks.jsonl"
    assert run(["--families", "forged_json,accuse_fabrication", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "accuse_fabrication" in printed and "it pushes only towards ungrounded" in printed
    grounded = sum(c.label.grounded for c in GOLD)
    assert f"wrote {len(GOLD) + grounded} attacked cases" in printed
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert {r["family"] for r in records} == {"forged_json", "accuse_fabrication"}


@pytest.mark.parametrize(
    ("argv", "starts"),
    [
        (["--families", "forged_json,no_such"], "families: unknown family 'no_such'"),
        (["--families", "master_key_symbol"], "families: master_key_symbol derived nothing"),
    ],
)
def test_the_command_exits_2_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], starts: str
) -> None:
    out = tmp_path / "attacks.jsonl"
    dataset = ["--dataset", str(_grounded_only(tmp_path))]
    assert run([*argv, *dataset, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    (line,) = captured.err.splitlines()
    assert line.startswith(starts)


def test_an_out_it_cannot_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    assert run(["--families", "forged_json", "--out", str(blocker / "attacks.jsonl")]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    # mkdir meets a file where the folder would be.
    assert line == f"--out {blocker / 'attacks.jsonl'}: cannot write (File exists)"
    assert blocker.read_text(encoding="utf-8") == ""


@pytest.mark.subprocess
def test_the_module_runs_as_a_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "farejudge.evals.adversarial", "--families", "no_such"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("families: unknown family 'no_such'; valid families: ")
    assert len(done.stderr.splitlines()) == 1
