"""A run whose log could not be written, or that judged nothing, is no success (issue 26,
finding 1; issue 55, findings 4 and 7).

On a full disk Inspect records the failed write in an errored log held in memory, logs one line
that `--display none` silences, and `inspect eval` exits 0. The task's hook reads each log back
at the end of the run: `inspect eval` then prints one line naming the log folder and exits 1,
whatever the display. The disk is a real one: a small tmpfs (tests/support/full_disk.py). A run
whose every sample errored (a key the provider refused) exits 1 the same way, its line naming
the model, the HTTP status and where the key came from. Each line is on stderr, unwrapped.
"""

import re
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from inspect_ai.log import EvalError, EvalLog, EvalResults, EvalSpec, read_eval_log

from farejudge.evals.log_written import unwritten, why_unjudged, why_unwritten
from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import Run, inspect_eval
from tests.support.full_disk import full_folder
from tests.support.json_server import serving
from tests.support.paths import FIXTURES
from tests.support.standins.openai_errors import EchoesKey

ENOSPC = "OSError: [Errno 28] No space left on device"
# Room for the log's first header (about 2 KB) and not for the finished log (about 40 KB).
HEADER_ROOM = 8192


def errored(location: str, status: str = "error") -> EvalLog:
    """The log Inspect returns for a task whose log write failed (`_run_task`'s except branch)."""
    return EvalLog.model_construct(
        status=status,
        eval=EvalSpec.model_construct(task="judge_groundedness", model="mockllm/model"),
        error=EvalError(
            message="OSError(28, 'No space left on device')",
            traceback=f"Traceback (most recent call last):\n  ...\n{ENOSPC}\n",
            traceback_ansi="",
        ),
        location=location,
    )


def test_a_log_that_is_not_there_is_named_with_its_folder() -> None:
    log = errored("/data/logs/run.eval")
    line = why_unwritten(log, FileNotFoundError("/data/logs/run.eval"))
    assert line == (
        "judge_groundedness (mockllm/model): the log could not be written in /data/logs: "
        f"{ENOSPC}; run.eval cannot be read back"
    )


def test_a_log_left_as_it_started_is_named_with_what_it_holds() -> None:
    log = errored("/data/logs/run.eval")
    line = why_unwritten(log, errored("/data/logs/run.eval", status="started"))
    assert line is not None and line.endswith(f"{ENOSPC}; run.eval holds the run as 'started'")


def test_a_log_that_holds_the_run_end_is_written() -> None:
    log = errored("/data/logs/run.eval")
    assert why_unwritten(log, errored("/data/logs/run.eval")) is None


def test_unwritten_reads_the_file_back(tmp_path: Path) -> None:
    torn = tmp_path / "torn.eval"
    torn.write_bytes(b"PK\x03\x04 not a whole zip")
    line = unwritten(errored(str(torn)))
    assert line is not None and line.endswith("torn.eval cannot be read back")
    assert unwritten(errored(str(tmp_path / "missing.eval"))) is not None


CASES = str(FIXTURES / "cases.jsonl")
# name: (free bytes, display)
RUNS = {
    "no room, display none": (0, "none"),
    "no room, rich display": (0, "rich"),
    "room for the header, display none": (HEADER_ROOM, "none"),
    "room for the header, rich display": (HEADER_ROOM, "rich"),
}


@pytest.fixture(scope="module")
def full_runs(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, tuple[Run, Path]]]:
    """`inspect eval` of the 3 fixture cases into a log folder on a full disk, each run on a
    filesystem of its own."""
    root = tmp_path_factory.mktemp("full_disk")
    with ExitStack() as stack:
        folders = {
            name: stack.enter_context(full_folder(root / f"disk{i}", free))
            for i, (name, (free, _)) in enumerate(RUNS.items())
        }
        args = [
            [
                *["--model", "mockllm/model", "-T", f"dataset={CASES}", "--display", display],
                *["--log-dir", str(folders[name] / "logs")],
            ]
            for name, (_, display) in RUNS.items()
        ]
        # As wide as a terminal that is piped: the one line must not wrap.
        done = inspect_eval(args, env={"COLUMNS": "80"})
        # Yielded before the disks are unmounted: the tests list what each run left.
        yield {name: (run, folders[name] / "logs") for name, run in zip(RUNS, done, strict=True)}


def expected(log_dir: Path, said: str, held: str) -> str:
    name = re.search(r"(\S+\.eval) (?:cannot|holds)", said)
    assert name, said
    return (
        f"judge_groundedness (mockllm/model): the log could not be written in {log_dir}: "
        f"{ENOSPC}; {name.group(1)} {held}"
    )


@pytest.mark.subprocess
@pytest.mark.parametrize("name", list(RUNS))
def test_inspect_eval_on_a_full_disk_fails_with_one_line(
    name: str, full_runs: dict[str, tuple[Run, Path]]
) -> None:
    run, log_dir = full_runs[name]
    free, display = RUNS[name]
    assert run.returncode == 1, "\n".join(run.lines)
    assert "Traceback" not in run.stdout + run.stderr
    held = "cannot be read back" if free == 0 else "holds the run as 'started'"
    # On stderr, whole, whatever the display.
    line = [x for x in run.stderr.splitlines() if x.strip()][-1]
    assert line not in run.stdout
    if display == "none":
        assert run.lines == [line]
    else:
        # Inspect's own line first (its log handler, wrapped at the terminal's width, its
        # source file in the margin), then ours.
        said = " ".join(" ".join(run.lines).split())
        assert "encountered an" in said and "error while starting or writing its log" in said
    assert line == expected(log_dir, line, held)
    logs = list(log_dir.glob("*.eval")) if log_dir.exists() else []
    if free:
        (log,) = logs
        assert read_eval_log(str(log), header_only=True).status == "started"
    else:
        assert logs == []


# --- a run that judged nothing --------------------------------------------------------------


def test_a_run_stopped_on_errored_samples_is_one_line_with_what_it_judged() -> None:
    log = EvalLog.model_construct(
        status="error",
        eval=EvalSpec.model_construct(task="judge_groundedness", model="openai/gpt-4o-mini"),
        results=EvalResults.model_construct(completed_samples=5),
        error=None,
        location="/data/logs/run.eval",
    )
    # The samples in flight when the run stopped were cancelled: the outage is the cause.
    errors = ["CancelledError()", "judge unreachable: InternalServerError: HTTP 500: down"]
    assert why_unjudged(log, errors, 10, "the key in OPENAI_API_KEY") == (
        "judge_groundedness (openai/gpt-4o-mini): the run stopped on errored samples (5 judged): "
        "2 of 10 samples errored, the first with HTTP 500 (InternalServerError); "
        "log: /data/logs/run.eval"
    )
    # Some judged and the run ended as it should: its errored samples are eval-retry's.
    assert why_unjudged(log.model_copy(update={"status": "success"}), errors, 10, None) is None


KEY = "sk-refused-every-time-4d8e1a"
# name: (options, the key's environment, how the line names where the key came from)
REFUSED_RUNS = {
    "stopped by fail_on_error": ([], {"OPENAI_API_KEY": KEY}, "the key in OPENAI_API_KEY"),
    "fail_on_error=false": (
        ["-T", "fail_on_error=false"],
        {"OPENAI_API_KEY": KEY},
        "the key in OPENAI_API_KEY",
    ),
    "key given as -M": (["-M", f"api_key={KEY}"], {}, "the key given as -M api_key"),
}


@pytest.fixture(scope="module")
def refused_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[Run, Path]]]:
    """`inspect eval` against a server that refuses the key for every case, as OpenAI does,
    its output piped to a terminal 80 columns wide."""
    root = tmp_path_factory.mktemp("refused")
    cases = root / "cases.jsonl"
    EchoesKey.refused = frozenset(write_cases(cases, 3))
    with serving(EchoesKey) as url:
        done = inspect_eval(
            [
                [
                    *("--model", "openai/gpt-4o-mini", "-T", f"dataset={cases}"),
                    *options,
                    *("--log-dir", str(root / name.replace(" ", "-"))),
                ]
                for name, (options, _, _) in REFUSED_RUNS.items()
            ],
            env={"OPENAI_BASE_URL": url, "OPENAI_API_KEY": "", "COLUMNS": "80"},
            per_run_env=[key_env for _, key_env, _ in REFUSED_RUNS.values()],
        )
    yield {
        name: (run, root / name.replace(" ", "-"))
        for name, run in zip(REFUSED_RUNS, done, strict=True)
    }


@pytest.mark.subprocess
@pytest.mark.parametrize("name", list(REFUSED_RUNS))
def test_a_run_that_judged_nothing_exits_1_with_one_line(
    name: str, refused_runs: dict[str, tuple[Run, Path]]
) -> None:
    run, log_dir = refused_runs[name]
    (log,) = log_dir.glob("*.eval")
    said = REFUSED_RUNS[name][2]
    line = (
        "judge_groundedness (openai/gpt-4o-mini): nothing judged: 3 of 3 samples errored, the "
        f"first with HTTP 401 (AuthenticationError): the provider refused {said}; log: {log}"
    )
    assert run.returncode == 1, "\n".join(run.lines)
    # On stderr, whole, however narrow the terminal.
    assert line in run.stderr.splitlines(), run.stderr
    assert line not in run.stdout
    assert KEY not in run.stdout + run.stderr
