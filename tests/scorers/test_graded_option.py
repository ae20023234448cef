"""The graded option: checked once where it is given, trusted after, and resolved by the
sample's model as the providers say."""

import json

import pytest

from farejudge.core.errors import InputError
from farejudge.scorers.graded_option import GradedOption


@pytest.mark.parametrize("flag", ["-T", "-S"])
def test_an_option_is_checked_where_it_is_given_and_trusted_after(flag: str) -> None:
    checked = GradedOption.given("logprobs", flag)
    assert checked == "logprobs" and isinstance(checked, GradedOption)
    # Passed on (the task's option to its scorer), it is the same value, not checked again.
    assert GradedOption.given(checked, "-S") is checked
    with pytest.raises(InputError) as err:
        GradedOption.given("logprob", flag)
    assert err.value.problems == [f"{flag} graded='logprob': give auto, logprobs, epochs or off"]


def test_off_typed_on_the_command_line_is_off() -> None:
    # `-T graded=off` arrives as False: Inspect reads task options as YAML.
    assert GradedOption.given(False, "-T") == "off"
    with pytest.raises(InputError, match=r"^-T graded=True: give auto"):
        GradedOption.given(True, "-T")


def test_the_option_is_recorded_as_the_text_it_was_given() -> None:
    # Inspect records it with the task's metadata and the scorer's options.
    assert json.dumps({"graded": GradedOption.given("auto", "-T")}) == '{"graded": "auto"}'


@pytest.mark.parametrize(
    ("option", "model", "mode"),
    [
        ("auto", "gguf/smollm2-135m", "logprobs"),
        ("auto", "openai/gpt-4o-mini", "epochs"),
        ("auto", "mockllm/model", "epochs"),
        ("logprobs", "openai/gpt-4o-mini", "logprobs"),
        ("epochs", "gguf/smollm2-135m", "epochs"),
        ("off", "gguf/smollm2-135m", "off"),
    ],
)
def test_auto_reads_logprobs_where_the_provider_computes_them(
    option: str, model: str, mode: str
) -> None:
    assert GradedOption.given(option, "-T").mode(model) == mode


@pytest.mark.parametrize(
    ("option", "model", "mode"),
    [
        ("auto", None, "auto"),
        ("logprobs", None, "logprobs"),
        ("auto", "gguf/smollm2-135m", "logprobs"),
        ("auto", "mockllm/model", "epochs"),
    ],
)
def test_before_the_model_is_known_the_option_stands(
    option: str, model: str | None, mode: str
) -> None:
    assert GradedOption.given(option, "-T").known_mode(model) == mode
