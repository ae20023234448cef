"""judge-compare's options refused in one line with exit 2: a target recall outside (0, 1], a
bad constraint, a bad option of selective judging."""

from pathlib import Path

import pytest

from farejudge.comparison.cli import EXIT_INPUT, run


@pytest.mark.parametrize("value", ["0", "1.5", "nan"])
def test_a_target_recall_outside_0_1_is_a_one_line_error(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run([str(tmp_path), "--target-recall", value, "--out", str(tmp_path)]) == EXIT_INPUT
    err = capsys.readouterr().err.strip()
    assert err == f"judge-compare: error: --target-recall {float(value)}: must be in (0, 1]"


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (["--min-recall", "1.5"], "--min-recall 1.5: must be in [0, 1]"),
        (["--max-failure-rate", "-0.1"], "--max-failure-rate -0.1: must be in [0, 1]"),
        (["--max-cost-per-1k", "-2"], "--max-cost-per-1k -2: must be 0 or more"),
        (["--max-p95-latency", "nan"], "--max-p95-latency nan: must be 0 or more"),
    ],
)
def test_a_bad_constraint_is_one_line_exit_2(
    option: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["no-such-logs", *option]) == EXIT_INPUT
    assert capsys.readouterr().err == f"judge-compare: error: {says}\n"


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (["--alpha", "1.5"], "--alpha 1.5: must be a number between 0 and 1, both excluded"),
        (["--alpha", "0"], "--alpha 0.0: must be a number between 0 and 1, both excluded"),
        (["--delta", "-0.1"], "--delta -0.1: must be a number between 0 and 1, both excluded"),
        (["--delta", "ten"], "--delta 'ten': must be a number between 0 and 1, both excluded"),
        (
            ["--min-agreement", "1"],
            "--min-agreement 1.0: must be a number between 0 and 1, both excluded",
        ),
        (
            ["--human-cost-per-review", "-1"],
            "--human-cost-per-review -1.0: must be a finite number, 0 or more",
        ),
        (
            ["--alpha", "0.05", "--min-agreement", "0.9"],
            "--alpha 0.05 and --min-agreement 0.9: the minimum agreement is 1 - alpha; give one "
            "of them",
        ),
        (["--cascade", "v3/a"], "--cascade v3/a: name two or three candidates, cheapest first"),
    ],
)
def test_a_bad_option_of_selective_judging_is_one_line_exit_2(
    option: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before any log is read: the folder does not exist.
    assert run(["no-such-logs", *option]) == EXIT_INPUT
    assert capsys.readouterr().err == f"judge-compare: error: {says}\n"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("experts", "--epsilon experts: give expert, skilled, crowd or a number between 0 and 1"),
        ("1.5", "--epsilon 1.5: a margin between 0 and 1, exclusive"),
    ],
)
def test_a_bad_epsilon_is_one_line_exit_2(
    value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["no-such-logs", "--epsilon", value]) == EXIT_INPUT
    assert capsys.readouterr().err == f"judge-compare: error: {says}\n"
