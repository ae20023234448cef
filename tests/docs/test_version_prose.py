"""What the prose says of the prompt versions is the manifest: "now at v3" and "runs the v3
prompt" name its current version, "(v1, v2, v3)" its versions, and "v1-v3" (pyproject's
description, the guides) its first and last. A fourth version fails this test on every
sentence it leaves stale, named by page and line. The table of versions is generated
(scripts/prompt_table.py)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from farejudge.evals.prompt_versions import Manifest, load_manifest
from tests.support.paths import REPO_ROOT

PYPROJECT = REPO_ROOT / "pyproject.toml"
PAGES = sorted(
    [
        *(REPO_ROOT / "docs").rglob("*.md"),
        REPO_ROOT / "README.md",
        REPO_ROOT / "datasets" / "README.md",
    ]
)


@dataclass(frozen=True)
class Claim:
    """A way the prose states a fact of the manifest."""

    name: str
    pattern: re.Pattern[str]

    def expected(self, manifest: Manifest) -> str:
        versions = list(manifest.versions)
        return {
            "current": manifest.current,
            "versions": ", ".join(versions),
            "range": f"{versions[0]}-{versions[-1]}",
        }[self.name]


CURRENT = Claim("current", re.compile(r"now\s+at\s+(?:version\s+)?(v\d+)"))
DEFAULT = Claim("current", re.compile(r"\bruns?\s+the\s+(v\d+)\s+(?:judge\s+)?prompt"))
VERSIONS = Claim("versions", re.compile(r"\((v\d+(?:,\s+v\d+)+)\)"))
# A hyphen or an en dash (U+2013), as the guides write a range.
RANGE = Claim("range", re.compile(r"\b(v\d+\s?[-\u2013]\s?v\d+)\b"))
EVERYWHERE = (CURRENT, DEFAULT, RANGE)
"""Read on every page; VERSIONS only where the list stands for all of them."""
REQUIRED = {
    "README.md": (CURRENT, DEFAULT, VERSIONS),
    "docs/index.md": (CURRENT, DEFAULT, VERSIONS),
    "docs/getting-started.md": (DEFAULT,),
    "pyproject.toml [project].description": (RANGE,),
}
"""Where each statement is written today: rewording one away from its pattern fails the test
instead of leaving it unchecked."""


def claim_problems(
    name: str, text: str, claims: tuple[Claim, ...], manifest: Manifest
) -> list[str]:
    """One line per statement that is not the manifest's, naming where it is."""
    problems = []
    for claim in claims:
        for found in claim.pattern.finditer(text):
            said = re.sub(r"\s*[-\u2013]\s*", "-", " ".join(found[1].split()))
            if said != claim.expected(manifest):
                line = text.count("\n", 0, found.start()) + 1
                problems.append(
                    f"{name}:{line}: {found[0]!r} says {said}, the manifest "
                    f"{claim.expected(manifest)}"
                )
    return problems


def texts() -> dict[str, str]:
    """Each page's text, and pyproject's description, by the name the test reports."""
    found = {
        page.relative_to(REPO_ROOT).as_posix(): page.read_text(encoding="utf-8") for page in PAGES
    }
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    found["pyproject.toml [project].description"] = project["description"]
    return found


def all_problems(manifest: Manifest) -> list[str]:
    problems = []
    for name, text in texts().items():
        claims = tuple(dict.fromkeys([*EVERYWHERE, *REQUIRED.get(name, ())]))
        problems += claim_problems(name, text, claims, manifest)
    return problems


def test_the_prose_names_the_manifests_versions() -> None:
    assert all_problems(load_manifest()) == []


@pytest.mark.parametrize(("name", "claims"), REQUIRED.items())
def test_each_statement_is_where_it_is_checked(name: str, claims: tuple[Claim, ...]) -> None:
    text = texts()[name]
    for claim in claims:
        assert claim.pattern.search(text), f"{name} no longer says {claim.pattern.pattern}"


def test_a_fourth_version_fails_every_stale_sentence(tmp_path: Path) -> None:
    manifest = load_manifest()
    v3 = manifest.versions[manifest.current]
    v4 = manifest.model_copy(update={"current": "v4", "versions": {**manifest.versions, "v4": v3}})
    problems = all_problems(v4)
    where = {problem.split(":")[0] for problem in problems}
    assert set(REQUIRED) <= where, problems
    assert any("README.md:" in p and "says v3, the manifest v4" in p for p in problems)
    assert any("says v1, v2, v3, the manifest v1, v2, v3, v4" in p for p in problems)
    assert any("says v1-v3, the manifest v1-v4" in p for p in problems)


def test_a_statement_is_named_by_page_and_line() -> None:
    manifest = load_manifest()
    text = "Intro.\n\nThe prompt, now at\nversion v2, and (v1, v3).\n"
    assert claim_problems("page.md", text, (CURRENT, VERSIONS), manifest) == [
        f"page.md:3: 'now at\\nversion v2' says v2, the manifest {manifest.current}",
        f"page.md:4: '(v1, v3)' says v1, v3, the manifest {', '.join(manifest.versions)}",
    ]
