"""Bad case files and options through the real CLI: one clear line each, before any model call.

tests/evals/test_dataset.py checks the loader's messages in-process; this is what a user sees when
they type `inspect eval`: the exit code, the whole output, and that no eval started.

Inspect prints the message through rich, which hard-wraps it at the terminal width (80 columns
in a pipe): the runs get the width of a wide terminal, so a problem is one line here.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rich
from pydantic import BaseModel, StrictBool, StrictStr, TypeAdapter, ValidationError

from farejudge.core.errors import InputError
from farejudge.core.inspect_internals import exception_hook
from farejudge.evals.judge_groundedness import judge_groundedness
from tests.support.cli import Run, inspect_eval
from tests.support.paths import FIXTURES

GOOD = FIXTURES / "cases.jsonl"
RECORDS: list[dict[str, Any]] = [
    json.loads(line) for line in GOOD.read_text(encoding="utf-8").splitlines()
]
CONV, PRICE = json.dumps(RECORDS[0]), RECORDS[1]


def changed(**fields: Any) -> str:
    """The t-price record with fields replaced (`label__grounded` is nested; None deletes)."""
    record = json.loads(json.dumps(PRICE))
    for dotted, value in fields.items():
        *parents, key = dotted.split("__")
        target = record
        for parent in parents:
            target = target[parent]
        if value is None:
            del target[key]
        else:
            target[key] = value
    return json.dumps(record)


# The reasons inside a problem line are json's and pydantic's own words, which change between
# their releases: each is asked for its words here, and the line around them is checked exactly.
def json_reason(text: str) -> str:
    """json's reason and column for `text` not being JSON, as the loader quotes them."""
    try:
        json.loads(text)
    except json.JSONDecodeError as err:
        return f"{err.msg}, column {err.colno}"
    raise AssertionError(f"{text!r} is valid JSON")


class OneField(BaseModel):
    field: str


def pydantic_reason(annotation: Any, value: Any) -> str:
    """pydantic's message for `value` not validating as `annotation`."""
    try:
        TypeAdapter(annotation).validate_python(value)
    except ValidationError as err:
        return err.errors()[0]["msg"]
    raise AssertionError(f"{value!r} is a valid {annotation}")


# name: (the case file's lines, or None for no file; more options; the lines the user must
# see, given the case file's path)
Row = tuple[list[str] | None, list[str], Callable[[str], list[str]]]
ROWS: dict[str, Row] = {
    "not JSON": (
        [CONV, "{not json"],
        [],
        lambda p: [f"{p}:2: case ?: not valid JSON ({json_reason('{not json')})"],
    ),
    "truncated line": (
        [CONV, json.dumps(PRICE)[:90]],
        [],
        lambda p: [f"{p}:2: case ?: not valid JSON ({json_reason(json.dumps(PRICE)[:90])})"],
    ),
    "missing field": (
        [changed(rationale=None)],
        [],
        lambda p: [f"{p}:1: case 't-price': field 'rationale': {pydantic_reason(OneField, {})}"],
    ),
    "mistyped field": (
        [changed(label__grounded="false")],
        [],
        lambda p: [
            f"{p}:1: case 't-price': field 'label.grounded': {pydantic_reason(StrictBool, 'false')}"
        ],
    ),
    "mistyped id": (
        [changed(id=7)],
        [],
        lambda p: [f"{p}:1: case ?: field 'id': {pydantic_reason(StrictStr, 7)}"],
    ),
    "duplicate id": (
        [CONV, CONV],
        [],
        lambda p: [f"{p}:2: case 't-conv': field 'id': duplicate of {p}:1"],
    ),
    "gold claim not in its answer": (
        [changed(label__unsupported_claims=["costs $99"])],
        [],
        lambda p: [
            f"{p}:1: case 't-price': field 'label.unsupported_claims.0': "
            "'costs $99' is not a verbatim part of the answer"
        ],
    ),
    "empty file": ([], [], lambda p: [f"{p}: no cases in this file"]),
    "missing file": (None, [], lambda p: [f"{p}: no such case file or folder"]),
    "unknown -T option": (
        [CONV],
        ["-T", "promt_version=v2"],
        lambda p: [
            "-T promt_version: not an option of judge_groundedness",
            "options: prompt_version, dataset, constrained, fail_on_error, suite, families, shard, "
            "graded, threshold, decision",
        ],
    ),
    "unknown prompt version": (
        [CONV],
        ["-T", "prompt_version=v9"],
        lambda p: ["-T prompt_version='v9': not in manifest.toml; valid versions: v1, v2, v3"],
    ),
    "a threshold for a run without a graded score": (
        [CONV],
        ["-T", "graded=off", "-T", "threshold=0.9"],
        lambda p: [
            "-T threshold=0.9: v3 with mockllm/model has no graded score (graded=off), so no "
            "confidence to hold to a threshold; judge with graded=logprobs"
        ],
    ),
    "a threshold for a run graded by epochs": (
        [CONV],
        ["-T", "threshold=0.9"],
        lambda p: [
            "-T threshold=0.9: v3 with mockllm/model is graded by agreement over epochs "
            "(graded=epochs), a confidence of the whole case that a run scoring each epoch alone "
            "does not have; judge with graded=logprobs"
        ],
    ),
    "a threshold that is no confidence": (
        [CONV],
        ["-T", "graded=logprobs", "-T", "threshold=1.5"],
        lambda p: ["-T threshold=1.5: must be a confidence between 0 and 1"],
    ),
    "a decision that is not there": (
        [CONV],
        ["-T", "graded=logprobs", "-T", "decision=no-such-decision.json"],
        lambda p: ["-T decision=no-such-decision.json: No such file or directory"],
    ),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Run, Path, Path]]:
    """Every row's CLI run, started together: each one is a cold start of Inspect."""
    root = tmp_path_factory.mktemp("bad_inputs")
    args, places = [], []
    for i, (lines, options, _) in enumerate(ROWS.values()):
        case_file, log_dir = root / f"row{i}" / "cases.jsonl", root / f"row{i}" / "logs"
        case_file.parent.mkdir()
        if lines is not None:
            case_file.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        model = ["--model", "mockllm/model", "--log-dir", str(log_dir)]
        args.append(["-T", f"dataset={case_file}", *options, *model])
        places.append((case_file, log_dir))
    results = inspect_eval(args, env={"COLUMNS": "400"})
    return {name: (run, *place) for name, run, place in zip(ROWS, results, places, strict=True)}


@pytest.mark.subprocess
@pytest.mark.parametrize("name", list(ROWS))
def test_bad_input_ends_the_run_with_one_clear_line(
    name: str, runs: dict[str, tuple[Run, Path, Path]]
) -> None:
    run, case_file, log_dir = runs[name]
    assert run.returncode != 0
    assert run.lines == ROWS[name][2](str(case_file))
    assert "Traceback" not in run.stdout + run.stderr
    # No eval started: Inspect writes its log file before the first sample runs.
    assert not log_dir.exists() or not any(log_dir.iterdir())


# Each test runs in-process what the CLI runs.
def test_an_option_given_as_a_list_is_an_input_error() -> None:
    # `-T prompt_version=v1,v2` arrives as a list.
    with pytest.raises(InputError, match="give one prompt_version, not a list"):
        judge_groundedness(prompt_version=["v1", "v2"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "problem",
    [
        # The bracketed folder name vanishes from the message: it names a file that isn't there.
        "cases/[draft]/price.jsonl:2: case 'p-1': field 'id': duplicate of cases/a.jsonl:1",
        # A closing tag that matches nothing raises inside the hook: a traceback.
        "cases/a.jsonl:2: case '[/b]': field 'id': duplicate of cases/a.jsonl:1",
    ],
)
def test_the_message_is_printed_as_written(
    problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # rich's global console keeps the stream it was given, which may be an earlier test's
    # capture: give it this test's, as a fresh CLI process would have.
    rich.reconfigure()
    error = InputError([problem])
    exception_hook()(InputError, error, error.__traceback__)
    # rich wraps at the console's width when not on a terminal; the words must survive whole.
    assert " ".join(capsys.readouterr().out.split()) == problem
