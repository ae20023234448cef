"""The case file the scripted runs of the comparison tests judge: fixtures plus pinned cases."""

import json
from collections.abc import Iterable
from pathlib import Path

from farejudge.evals.dataset import DEFAULT_CASES
from farejudge.testing.scripted_runs import replies, run_version
from tests.support.paths import FIXTURES

__all__ = ["PINNED", "replies", "run_version", "write_cases"]

FIXTURE_CASES = FIXTURES / "cases.jsonl"
PINNED = ["conv-004", "fresh-001"]
"""The motivating cases of v2 and v3 in the prompt manifest."""


def write_cases(path: Path, extra_ids: Iterable[str] = PINNED) -> Path:
    """The test fixture cases plus named gold cases, as one JSON Lines file."""
    wanted = set(extra_ids)
    lines = FIXTURE_CASES.read_text(encoding="utf-8").splitlines()
    for case_file in sorted(DEFAULT_CASES.glob("*.jsonl")):
        lines += [
            line
            for line in case_file.read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line)["id"] in wanted
        ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
