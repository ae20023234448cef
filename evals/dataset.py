"""Case files → validated cases → Inspect samples.

Every record is checked before any model is called; all problems in all files are
reported together, one line each, naming file, line, case id and field.
"""

import json
import os
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import ValidationError

from datasets import (
    Dataset,
    are_progress_bars_disabled,
    disable_progress_bars,
    enable_progress_bars,
    load_dataset,
)
from evals.case_schema import FEATURES, Case, case_problems
from evals.errors import InputError

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


def validate_case_files(files: list[Path]) -> tuple[dict[str, tuple[str, Case]], list[str]]:
    """The good records by id, with where each is; and every problem, one line each."""
    problems: list[str] = []
    good: dict[str, tuple[str, Case]] = {}
    for path in files:
        records = 0
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
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
    return good, problems


def load_cases(path: str | Path = DEFAULT_CASES) -> list[Case]:
    files = case_files(path)
    validated, problems = validate_case_files(files)
    if problems:
        raise InputError(problems)
    rows = _quietly_load(files)
    cases = [Case.model_validate(_from_row(row)) for row in rows]
    # Fail loudly if `datasets` read any value differently from the JSON text.
    changed = [
        f"{where}: case {case.id!r}: the datasets library read this record differently "
        "from its JSON text"
        for (where, case), loaded in zip(validated.values(), cases, strict=True)
        if loaded != case
    ]
    if changed:
        raise InputError(changed)
    return cases


def _quietly_load(files: list[Path]) -> Dataset:
    """The files through `datasets`, without its progress bar on the user's terminal."""
    was_disabled = are_progress_bars_disabled()
    disable_progress_bars()
    try:
        return load_dataset(
            "json", data_files=[str(f) for f in files], features=FEATURES, split="train"
        )
    finally:
        if not was_disabled:
            enable_progress_bars()


def _from_row(row: dict[str, Any]) -> dict[str, Any]:
    passages = [{**p, "fetched": p["fetched"].isoformat()} for p in row["passages"]]
    return {**row, "passages": passages}


def case_to_sample(case: Case) -> Sample:
    """The case rides in metadata whole; the solver renders it for the chosen prompt version."""
    gold = case.label.model_dump()
    return Sample(
        id=case.id,
        input=case.question,
        target=json.dumps(gold, ensure_ascii=False),
        metadata=case.model_dump(),
    )


def cases_dataset(cases: list[Case], path: str | Path = DEFAULT_CASES) -> MemoryDataset:
    return MemoryDataset(
        [case_to_sample(c) for c in cases], name=Path(path).stem, location=str(path)
    )
