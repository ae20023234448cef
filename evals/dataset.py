"""Case files → validated cases → Inspect samples.

Every record is checked before any model is called; all problems in all files are
reported together, one line each, naming file, line, case id and field.
"""

import os
from pathlib import Path

from inspect_ai.dataset import Sample

from farejudge.core.case_schema import Case, case_problems
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import read_records
from farejudge.core.package_data import DATASETS
from farejudge.core.sample_case import gold_target, sample_metadata
from farejudge.core.text_input import shown
from farejudge.evals.prompt_versions import PromptVersion
from farejudge.evals.render import judge_messages

DEFAULT_CASES = DATASETS / "cases"
CONTESTED = DATASETS / "contested"
"""The contested set (issue 64): cases written to be arguable, labelled by three annotators.
Its drafts ship first; its cases exist once judge-promote has settled their labels."""
NAMED_DATASETS = {
    "contested": (
        CONTESTED / "cases",
        "the contested set has no settled labels yet: label datasets/contested/drafts.jsonl "
        "with judge-label, then judge-agreement and judge-promote (--into "
        "datasets/contested/cases)",
    ),
}
"""A `dataset` option that is a name: the cases folder it stands for, and what to do while
that folder does not exist yet."""


def named_dataset(option: str) -> Path:
    """The cases a `dataset` option names: a named set's folder, or the path as given.

    A name is looked up before any path, so a folder called `contested` in the working
    directory is `./contested`.
    """
    if option not in NAMED_DATASETS:
        return Path(option)
    cases, missing = NAMED_DATASETS[option]
    if not cases.exists():
        raise InputError([f"-T dataset={option}: {missing}"])
    return cases


def locate(path: str | Path) -> Path:
    """Find a relative path where the user meant it.

    `inspect eval evals/judge_groundedness.py` imports the task with the working directory set
    to `evals/`, so a relative `-T dataset=...` is also tried against the directory the
    command was typed in (the shell's PWD).
    """
    given = Path(path)
    if given.is_absolute():
        return given
    bases = [Path.cwd(), Path(os.environ.get("PWD", Path.cwd()))]
    return next((base / given for base in bases if (base / given).exists()), given)


def case_files(path: str | Path) -> list[Path]:
    """The JSON Lines files a `dataset` option names: one file, or every *.jsonl in a folder."""
    target = locate(path)
    if target.is_dir():
        files = sorted(target.glob("*.jsonl"))
        if not files:
            raise InputError([f"{shown(target)}: no *.jsonl case files in this folder"])
        return files
    if not target.is_file():
        raise InputError([f"{shown(target)}: no such case file or folder"])
    return [target]


def load_cases(path: str | Path = DEFAULT_CASES) -> list[Case]:
    """The cases a `dataset` option names, read once and checked strictly, or an InputError
    that lists every problem in every file."""
    files = case_files(path)
    records, problems = read_records(files, Case, "cases", check=case_problems)
    if problems:
        raise InputError(problems)
    return [case for _, case in records]


def case_to_sample(case: Case, version: PromptVersion, **derivation: str) -> Sample:
    """The case as the judge sees it under `version`, rendered once, as it is loaded.

    Gold is the target (its verdict, rationale and rules), and only there; the rest of the case
    is in the prompt; metadata carries only what a run groups by (`core/sample_case.py`).
    `derivation` (relation, derived_from, edit) says how a derived case was made.
    """
    return Sample(
        id=case.id,
        input=judge_messages(case, version),
        target=gold_target(case),
        metadata={**sample_metadata(case), **derivation},
    )
