"""Case files → validated cases → Inspect samples.

Every record is checked before any model is called; all problems in all files are
reported together, one line each, naming file, line, case id and field.
"""

import glob
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample
from pydantic import ValidationError

from datasets import (
    are_progress_bars_disabled,
    disable_progress_bars,
    enable_progress_bars,
    load_dataset,
)
from farejudge.core.case_schema import Case, case_problems
from farejudge.core.errors import InputError
from farejudge.evals.prompt_versions import PromptVersion
from farejudge.evals.render import judge_messages

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CASES = REPO_ROOT / "datasets" / "cases"


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _locate(path: str | Path) -> Path:
    """Find a relative path where the user meant it.

    `inspect eval evals/judge_groundedness.py` imports the task with the working directory set
    to `evals/`, so a relative `-T dataset=...` is also tried against the directory the
    command was typed in (the shell's PWD) and the repository root.
    """
    given = Path(path)
    if given.is_absolute():
        return given
    bases = [Path.cwd(), Path(os.environ.get("PWD", Path.cwd())), REPO_ROOT]
    return next((base / given for base in bases if (base / given).exists()), given)


def case_files(path: str | Path) -> list[Path]:
    """The JSON Lines files a `dataset` option names: one file, or every *.jsonl in a folder."""
    target = _locate(path)
    if target.is_dir():
        files = sorted(target.glob("*.jsonl"))
        if not files:
            raise InputError([f"{_shown(target)}: no *.jsonl case files in this folder"])
        return files
    if not target.is_file():
        raise InputError([f"{_shown(target)}: no such case file or folder"])
    return [target]


def _field(loc: tuple[int | str, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(record)"


def _record_problems(record: Any, where: str) -> tuple[Case | None, list[str]]:
    if not isinstance(record, dict):
        return None, [f"{where}: case ?: record is a JSON {type(record).__name__}, not an object"]
    raw_id = record.get("id")
    who = f"case {raw_id!r}" if isinstance(raw_id, str) and raw_id else "case ?"
    try:
        case = Case.model_validate(record)
    except ValidationError as err:
        return None, [
            f"{where}: {who}: field {_field(e['loc'])!r}: {e['msg']}" for e in err.errors()
        ]
    return case, [f"{where}: {who}: field {f!r}: {msg}" for f, msg in case_problems(case)]


@contextmanager
def _progress_bars_off() -> Iterator[None]:
    """No `datasets` progress bar on the user's terminal while the files are read."""
    was_disabled = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        yield
    finally:
        if not was_disabled:
            enable_progress_bars()


def _read_lines(files: list[Path]) -> list[list[str]]:
    """Each file's lines, read by the `datasets` text reader: line n of a file is item n - 1.

    The reader opens a file with universal newlines, so LF, CRLF and CR each end a line; a
    blank line is an empty item, and a last line without a newline is a line. Each file is a
    split of its own, so every line stays with its file. Streaming reads the files where they
    are: no cache that could go stale, and an empty file is an empty split, not an error.
    """
    # `data_files` are glob patterns: a folder named "[draft]" would otherwise match nothing.
    splits = {f"file{i}": glob.escape(str(path)) for i, path in enumerate(files)}
    with _progress_bars_off():
        read = load_dataset("text", data_files=splits, streaming=True)
        return [[row["text"] for row in read[split]] for split in splits]


def _validated(files: list[Path], lines: list[list[str]]) -> tuple[list[Case], list[str]]:
    """The good cases, in file and line order; and every problem, one line each."""
    problems: list[str] = []
    good: dict[str, tuple[str, Case]] = {}
    for path, file_lines in zip(files, lines, strict=True):
        records = 0
        for lineno, line in enumerate(file_lines, start=1):
            if not line.strip():
                continue
            records += 1
            where = f"{_shown(path)}:{lineno}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as err:
                problems.append(f"{where}: case ?: not valid JSON ({err.msg}, column {err.colno})")
                continue
            case, found = _record_problems(record, where)
            problems.extend(found)
            if case is None:
                continue
            if case.id in good:
                problems.append(
                    f"{where}: case {case.id!r}: field 'id': duplicate of {good[case.id][0]}"
                )
            else:
                good[case.id] = (where, case)
        if records == 0:
            problems.append(f"{_shown(path)}: no cases in this file")
    return [case for _, case in good.values()], problems


def load_cases(path: str | Path = DEFAULT_CASES) -> list[Case]:
    """The cases a `dataset` option names, read once and checked strictly, or an InputError
    that lists every problem in every file."""
    files = case_files(path)
    cases, problems = _validated(files, _read_lines(files))
    if problems:
        raise InputError(problems)
    return cases


SAMPLE_METADATA = {"category", "question", "answer", "rationale", "rules"}
"""The case fields a sample keeps in metadata."""


def case_to_sample(case: Case, version: PromptVersion, **derivation: str) -> Sample:
    """The case as the judge sees it under `version`, rendered once, as it is loaded.

    Gold is the target, and only there. Metadata carries what the scorer and the viewer read
    besides: the rest of the case is in the prompt, and Inspect copies metadata many times
    per sample. `derivation` (relation, derived_from, edit) says how a derived case was made.
    """
    return Sample(
        id=case.id,
        input=judge_messages(case, version),
        target=case.label.model_dump_json(),
        metadata={**case.model_dump(include=SAMPLE_METADATA), **derivation},
    )

