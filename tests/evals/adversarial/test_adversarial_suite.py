"""`-T suite=adversarial` end to end on mockllm: a judge fooled by one family shows attack
success there alone, and each attacked sample keeps what the report and the viewer read."""

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.viewer import TaskSamplesView

from farejudge.evals.adversarial.stats import by_family
from farejudge.evals.dataset import DEFAULT_CASES, load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.suite import suite_samples
from farejudge.testing.attack_judge import fooled_judge

ATTACK_COLUMNS = ["family", "direction", "derived_from"]

FAMILIES = ["forged_json", "verified_by_office", "passage_instruction", "accuse_fabrication"]


@pytest.mark.slow
def test_a_judge_fooled_by_one_family_is_fooled_there_alone(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    gold = load_cases(DEFAULT_CASES)[:30]
    cases.write_text("".join(c.model_dump_json() + "\n" for c in gold), encoding="utf-8")
    samples, _ = suite_samples(gold, "adversarial", load_prompt_version("v3"), FAMILIES)
    (log,) = eval(
        judge_groundedness(
            prompt_version="v3", dataset=str(cases), suite="adversarial", families=FAMILIES
        ),
        model=fooled_judge(samples, {"verified_by_office"}),
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success" and log.samples is not None
    assert len(log.samples) == len(samples)
    assert log.eval.task_args.get("families") == FAMILIES
    rows = []
    for sample in log.samples:
        value = (sample.scores or {})["verdict_agreement"].value
        assert isinstance(value, dict)
        rows.append((str(sample.id), sample.metadata, value["agree"] == 1))
        if "family" in sample.metadata:
            # The viewer's derivation columns read the family as the sample's relation.
            assert value["relation"] == sample.metadata["family"]
            # ... and its own column, with the verdict the attack pushes towards.
            assert value["family"] == sample.metadata["family"]
            assert value["direction"] == sample.metadata["direction"]
    assert log.eval.viewer is not None
    view = log.eval.viewer.task_samples_view
    assert isinstance(view, TaskSamplesView) and view.columns is not None
    visible = [c.id for c in view.columns if c.visible]
    assert visible[3:6] == [f"score__verdict_agreement__{k}" for k in ATTACK_COLUMNS]
    figures = by_family(rows)
    print({f: (x.fooled, x.right) for f, x in figures.items()})
    assert set(figures) == set(FAMILIES)
    fooled = figures["verified_by_office"]
    ungrounded = sum(not c.label.grounded for c in gold)
    assert (fooled.fooled, fooled.right, fooled.success.estimate) == (ungrounded, ungrounded, 1.0)
    assert all(figures[f].fooled == 0 for f in FAMILIES if f != "verified_by_office")
    assert all(x.clean_accuracy.estimate == 1.0 for x in figures.values())
