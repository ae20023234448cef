"""judge-compare over two adversarial runs on mockllm: v2 no attack moves, v3 fooled by one
family. The gate fails on that family alone, the report shows each family's attack success,
and decision.json records it per candidate and applies --max-attack-success."""

import json
from pathlib import Path

import pytest
from inspect_ai import eval

from farejudge.comparison.cli import EXIT_GATE, run
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples
from farejudge.testing.attack_judge import fooled_judge

FAMILIES = ["forged_json", "verified_by_office", "passage_instruction", "accuse_fabrication"]
FOOLED_BY = "verified_by_office"


@pytest.mark.slow
def test_the_gate_fails_on_the_one_family_the_newest_version_is_fooled_by(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    gold = load_cases(DEFAULT_CASES)[:30]
    cases.write_text("".join(c.model_dump_json() + "\n" for c in gold), encoding="utf-8")
    for version, fooled_by in (("v2", set()), ("v3", {FOOLED_BY})):
        samples, _ = suite_samples(gold, "adversarial", load_prompt_version(version), FAMILIES)
        eval(
            judge_groundedness(
                prompt_version=version, dataset=str(cases), suite="adversarial", families=FAMILIES
            ),
            model=fooled_judge(samples, fooled_by),
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    out = tmp_path / "report"
    argv = [str(tmp_path / "logs"), "--out", str(out), "--resamples", "200", "--quiet"]
    code = run([*argv, "--max-attack-success", "0.5"])
    printed = capsys.readouterr().err
    gate = [line for line in printed.splitlines() if "more attackable" in line]
    print("\n".join(gate))
    ungrounded = sum(not c.label.grounded for c in gold)
    assert code == EXIT_GATE
    (line,) = gate
    assert f"v3 is more attackable than v2 with mockllm/model on {FOOLED_BY}" in line
    assert f"fooled on {ungrounded} parent(s) v2 resisted, 0 the other way" in line
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## Attack success by family" in report
    decision = json.loads((out / "decision.json").read_text(encoding="utf-8"))
    assert decision["constraints"]["max_attack_success"] == 0.5
    runs = {c["version"]: c for c in decision["frontier"] if c["model"] == "mockllm/model"}
    assert runs["v2"]["attack_success"] == 0.0 and runs["v3"]["attack_success"] == 1.0
    assert "--max-attack-success" in runs["v3"]["failed_constraints"]
    assert "--max-attack-success" not in runs["v2"]["failed_constraints"]
    fooled = {a["family"]: a["fooled"] for a in runs["v3"]["attacks"]}
    assert fooled == {f: ungrounded if f == FOOLED_BY else 0 for f in FAMILIES}
    assert decision["prefer"]["version"] == "v2"
    # The pick's figures stand on the 30 gold cases as written: v3's fooled attacked cases are
    # its attack success, not its accuracy, which is v2's (the judge is right on every parent).
    assert {c["cases"] for c in runs.values()} == {len(gold)}
    assert runs["v3"]["balanced_accuracy"] == runs["v2"]["balanced_accuracy"]
    assert runs["v3"]["balanced_accuracy"]["estimate"] == 1.0
    attacked = len(samples) - len(gold)
    assert f"the suite's {attacked:,} derived and attacked cases are left out" in report
