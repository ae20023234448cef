"""Every file the project reads, given bytes that are not UTF-8, random bytes or a cut-off copy:
one line naming the file, the line and the byte offset, and never a traceback.

The readers: case files (`inspect eval`), drafts, labels, assistant logs (judge-intake), the
intake mapping, the prompt manifest and the price file (`--model-cost-config`).
"""

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farejudge.core.drafts import Draft, read_drafts
from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.evals.prompt_versions import MANIFEST, load_manifest
from farejudge.labelling.intake import Drafted, intake
from farejudge.labelling.intake import main as intake_main
from farejudge.labelling.intake_mapping import load_mapping
from farejudge.labelling.label_file import read_labels, recover_torn_tail
from farejudge.matrix.prices import load_model_costs
from tests.support.cli import inspect_eval
from tests.support.labels import DRAFTS, alice
from tests.support.paths import FIXTURES

CASES = (FIXTURES / "cases.jsonl").read_bytes()
LOG = (FIXTURES / "assistant_log.jsonl").read_bytes()
MAPPING_FILE = FIXTURES / "assistant_log_mapping.toml"
MAPPING = MAPPING_FILE.read_bytes()
DRAFT_LINES = "".join(d.model_dump_json() + "\n" for d in DRAFTS[:3]).encode()
LABEL_LINES = "".join(label.model_dump_json() + "\n" for label in alice()[:3]).encode()
PRICES = (
    b"openai/gpt-4o-mini:\n  input: 0.15\n  output: 0.6\n"
    b"  input_cache_write: 0.15\n  input_cache_read: 0.075\n"
)


def _labels(path: Path) -> None:
    read_labels(path)
    # As judge-label starts: the torn tail moved aside, then the rest read.
    recover_torn_tail(path)
    read_labels(path)


def _log(path: Path) -> None:
    """judge-intake's reader reports its problems instead of raising them: any is one line."""
    problems: list[str] = []
    drafts: list[Draft] = []
    intake([path], load_mapping(MAPPING_FILE), [], Drafted(), drafts.append, problems.append)
    if problems:
        raise InputError(problems)


# name: (a valid file, its reader, the noun a JSON Lines problem names)
READERS: dict[str, tuple[bytes, Callable[[Path], object], str | None]] = {
    "cases": (CASES, load_cases, "case"),
    "drafts": (DRAFT_LINES, read_drafts, "case"),
    "labels": (LABEL_LINES, _labels, "case"),
    "assistant log": (LOG, _log, "record"),
    "intake mapping": (MAPPING, load_mapping, None),
    "prompt manifest": (MANIFEST.read_bytes(), load_manifest.__wrapped__, None),
    "price file": (PRICES, load_model_costs, None),
}


def spliced(data: bytes, at: int, junk: bytes = b"\xff") -> bytes:
    return data[:at] + junk + data[at:]


def _where(name: str, path: Path) -> str:
    """How each reader names its file: the price file as the option that gave it."""
    return f"--model-cost-config {path}" if name == "price file" else str(path)


@pytest.mark.parametrize("name", list(READERS))
def test_a_byte_that_is_not_utf8_is_one_line_with_file_line_and_offset(
    name: str, tmp_path: Path
) -> None:
    valid, read, noun = READERS[name]
    # Into the second line, after its first byte: never inside another UTF-8 character.
    at = valid.index(b"\n") + 2
    path = tmp_path / "input"
    path.write_bytes(spliced(valid, at))
    with pytest.raises(InputError) as err:
        read(path)
    record = f"{noun} ?: " if noun else ""
    assert err.value.problems == [
        f"{_where(name, path)}:2: {record}byte 0xff at offset {at} is not UTF-8"
    ]


def test_judge_intake_names_the_byte_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log, out = tmp_path / "log.jsonl", tmp_path / "drafts.jsonl"
    at = LOG.index(b"Reduced monthly pass")
    log.write_bytes(spliced(LOG, at, b"\xe9\x80\xff"))
    args = [str(log), "--mapping", str(MAPPING_FILE), "--out", str(out)]
    assert intake_main([*args, "--gold", str(FIXTURES / "cases.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err == f"{log}:1: record ?: byte 0xe9 at offset {at} is not UTF-8\n"
    assert not out.exists()


def mutations(valid: bytes) -> st.SearchStrategy[bytes]:
    """Random bytes; the valid file cut off anywhere; random bytes spliced into it."""
    cut = st.integers(0, len(valid)).map(lambda n: valid[:n])
    spliced_in = st.tuples(
        st.integers(0, len(valid)), st.integers(0, 16), st.binary(min_size=1, max_size=16)
    ).map(lambda t: valid[: t[0]] + t[2] + valid[t[0] + t[1] :])
    return st.one_of(st.binary(max_size=4000), cut, spliced_in)


def answers_in_one_line_or_not_at_all(read: Callable[[Path], object], path: Path) -> None:
    try:
        read(path)
    except InputError as err:
        assert err.problems, "an InputError says what is wrong"
        for problem in err.problems:
            assert problem.strip() and "\n" not in problem and "\r" not in problem, problem


@pytest.mark.slow
@pytest.mark.parametrize("name", list(READERS))
def test_each_reader_answers_any_bytes_with_its_one_line_error(
    name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    valid, read, _ = READERS[name]
    path = tmp_path_factory.mktemp("fuzz") / "input"

    @settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(mutations(valid))
    def fuzz(data: bytes) -> None:
        for side in path.parent.glob("input.torn-*"):
            side.unlink()
        path.write_bytes(data)
        answers_in_one_line_or_not_at_all(read, path)

    fuzz()


@pytest.mark.subprocess
def test_inspect_eval_on_a_case_file_that_is_not_utf8(tmp_path: Path) -> None:
    cases, logs = tmp_path / "cases.jsonl", tmp_path / "logs"
    at = CASES.index(b"\n") + 20
    cases.write_bytes(spliced(CASES, at))
    model = ["--model", "mockllm/model", "--log-dir", str(logs)]
    (run,) = inspect_eval([["-T", f"dataset={cases}", *model]], env={"COLUMNS": "400"})
    assert run.returncode == 1
    assert run.lines == [f"{cases}:2: case ?: byte 0xff at offset {at} is not UTF-8"]
    assert "Traceback" not in run.stdout + run.stderr
    assert not logs.exists() or not any(logs.iterdir())
    assert json.loads(CASES.splitlines()[1])  # the line was valid before the byte went in
