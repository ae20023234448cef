"""Bad options of selective judging: each gives one line that names the option."""

import math

import pytest

from farejudge.scorers.escalation import (
    OptionError,
    check_alpha,
    check_delta,
    check_human_cost,
    check_min_agreement,
    check_threshold,
)


@pytest.mark.parametrize("value", [0, 1, 1.5, -0.1, math.nan, "0.1", True, None])
@pytest.mark.parametrize(
    ("check", "flag"),
    [(check_alpha, "--alpha"), (check_delta, "--delta"), (check_min_agreement, "--min-agreement")],
)
def test_a_share_outside_zero_to_one_is_one_line_naming_the_option(
    check: object, flag: str, value: object
) -> None:
    assert callable(check)
    with pytest.raises(OptionError) as raised:
        check(value)
    line = str(raised.value)
    print(f"\n{line}")
    assert "\n" not in line
    shown = repr(value) if isinstance(value, str | None) else str(value)
    assert line == f"{flag} {shown}: must be a number between 0 and 1, both excluded"


def test_a_task_option_is_named_as_it_was_typed() -> None:
    with pytest.raises(OptionError, match=r"^-T alpha=1\.0: must be a number between 0 and 1"):
        check_alpha(1.0, "-T alpha=")


def test_good_shares_pass_through() -> None:
    assert (check_alpha(0.1), check_delta(0.05), check_min_agreement(0.9)) == (0.1, 0.05, 0.9)


@pytest.mark.parametrize("value", [-1, math.inf, math.nan, "free"])
def test_a_human_cost_must_be_a_finite_amount(value: object) -> None:
    with pytest.raises(OptionError) as raised:
        check_human_cost(value)
    shown = repr(value) if isinstance(value, str) else str(value)
    assert (
        str(raised.value) == f"--human-cost-per-review {shown}: must be a finite number, 0 or more"
    )
    assert check_human_cost(0) == 0.0


@pytest.mark.parametrize("graded", ["off", "none"])
def test_a_threshold_for_a_candidate_without_a_graded_score_names_the_option(graded: str) -> None:
    with pytest.raises(OptionError) as raised:
        check_threshold(0.9, "v3 with mockllm/model", graded, "-T threshold=")
    line = str(raised.value)
    print(f"\n{line}")
    assert "\n" not in line
    assert line.startswith("-T threshold=0.9: v3 with mockllm/model has no graded score")
    assert f"(graded={graded})" in line


def test_a_threshold_for_a_run_graded_over_epochs_names_the_option() -> None:
    # Its confidence is the whole case's, which no single epoch's score has.
    with pytest.raises(OptionError) as raised:
        check_threshold(0.9, "v3 with openai/gpt-4o", "epochs")
    line = str(raised.value)
    print(f"\n{line}")
    assert "\n" not in line
    assert line.startswith("-T threshold=0.9: v3 with openai/gpt-4o is graded by agreement over")
    assert line.endswith("judge with graded=logprobs")


def test_a_threshold_is_a_confidence() -> None:
    assert check_threshold(0.85, "v3", "logprobs") == 0.85
    with pytest.raises(
        OptionError, match=r"^-T threshold=2: must be a confidence between 0 and 1$"
    ):
        check_threshold(2, "v3", "logprobs")
    with pytest.raises(OptionError, match=r"^-T threshold='high': must be a confidence between"):
        check_threshold("high", "v3", "logprobs")
