"""`--display none` silences Inspect's console, not the task's errors (issue 26, finding 9).

Inspect prints a PrerequisiteError (the task's one-line errors) through rich's global console,
which `--display none` makes quiet: a refused schema exited 1 and printed nothing. Each row
runs the real command line with and without `--display none`: the same lines, on stderr.
"""

import pytest

from tests.support.cli import Run, inspect_eval
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.standins.openai_platform import platform

pytestmark = pytest.mark.subprocess

# name: options (a {cases} and {url} to fill in)
ROWS = {
    "a bad case file": ["--model", "mockllm/model", "-T", "dataset={cases}"],
    "an unknown task option": ["--model", "mockllm/model", "-T", "datset=x"],
    # o1-mini has no Structured Outputs: the schema probe is refused with HTTP 400.
    "a refused schema": ["--model", "openai/o1-mini", "-T", "constrained=true"],
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Run]:
    """Each row's run, with (True) and without (False) `--display none`."""
    root = tmp_path_factory.mktemp("display_none")
    cases = root / "cases.jsonl"
    cases.write_text("{not json\n", encoding="utf-8")
    keys = [(name, quiet) for name in ROWS for quiet in (True, False)]
    with serving(platform()) as url:
        args = [
            [a.format(cases=cases) for a in ROWS[name]]
            + ["--log-dir", str(root / f"logs{i}")]
            + (["--display", "none"] if quiet else [])
            for i, (name, quiet) in enumerate(keys)
        ]
        env = {**OFFLINE_OPENAI, "OPENAI_BASE_URL": url, "COLUMNS": "400"}
        return dict(zip(keys, inspect_eval(args, env=env), strict=True))


@pytest.mark.parametrize("name", list(ROWS))
def test_an_error_line_prints_on_stderr_with_display_none(
    name: str, runs: dict[tuple[str, bool], Run]
) -> None:
    quiet, shown = runs[name, True], runs[name, False]
    assert quiet.returncode == shown.returncode == 1, "\n".join(shown.lines)
    assert quiet.stdout == ""
    assert shown.lines and quiet.lines == shown.lines
    assert "Traceback" not in quiet.stderr


def test_the_lines_are_the_errors_themselves(runs: dict[tuple[str, bool], Run]) -> None:
    (line,) = runs["a bad case file", True].lines
    assert line.endswith(
        "cases.jsonl:1: case ?: not valid JSON (Expecting property name enclosed in double "
        "quotes, column 2)"
    )
    assert runs["an unknown task option", True].lines == [
        "-T datset: not an option of judge_groundedness",
        "options: prompt_version, dataset, constrained, fail_on_error, suite, families, shard, "
        "graded, threshold, decision",
    ]
    assert runs["a refused schema", True].lines == [
        "openai/o1-mini rejected the verdict schema that -T constrained=true sends (Error code: "
        "400 - Invalid parameter: 'text.format' of type 'json_schema' is not supported with this "
        "model.); run with -T constrained=false (OpenAI's json_object format carries no schema)"
    ]
