"""The judge_groundedness prompt versions, read from their manifest."""

import datetime
import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from farejudge.core.errors import InputError
from farejudge.core.package_data import PROMPTS
from farejudge.core.text_input import dotted, read_text, shown

PROMPT_DIR = PROMPTS / "judge_groundedness"
MANIFEST = PROMPT_DIR / "manifest.toml"


class RenderContract(BaseModel):
    """What the judge sees of a case under one prompt version."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    prior_turns: bool
    passage_header: bool
    passage_provenance: bool
    # Framings against answers that address the judge (docs/adversarial.md). Off unless a
    # version's manifest entry turns them on, so v1-v3 render as they always did.
    answer_boundary: bool = False
    """The answer between two boundary lines holding a nonce drawn from the answer's own hash,
    which no answer can contain, with a line saying what the boundary means."""
    instructions_after_answer: bool = False
    """The version's instructions repeated after the answer, the last text the judge reads."""


class VersionEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    date: datetime.date | None = None
    changed: str
    motivating_cases: list[str]
    render: RenderContract


class Manifest(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    prompt: str
    current: str
    versions: dict[str, VersionEntry]


class PromptVersion(BaseModel):
    """One version, resolved: its entry in the manifest plus its instruction text."""

    model_config = ConfigDict(frozen=True)

    name: str
    instructions: str
    date: datetime.date | None
    changed: str
    motivating_cases: list[str]
    render: RenderContract


@cache
def load_manifest(path: Path = MANIFEST) -> Manifest:
    """The manifest, or an InputError of one line per problem naming the file (and the line,
    or the key, where it is)."""
    name = shown(path)
    text = read_text(path, name)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError([f"{name}: not TOML ({err})"]) from None
    try:
        return Manifest.model_validate(data)
    except ValidationError as err:
        raise InputError(
            [f"{name}: {dotted(e['loc'])}: {e['msg']}" for e in err.errors()]
        ) from None


def version_names() -> list[str]:
    return list(load_manifest().versions)


def manifest_record() -> dict[str, object]:
    """What a log keeps of the manifest it ran with, so its history never reads today's."""
    manifest = load_manifest()
    return {
        "prompt": manifest.prompt,
        "current": manifest.current,
        "versions": list(manifest.versions),
        "pinned": {name: entry.motivating_cases for name, entry in manifest.versions.items()},
    }


def load_prompt_version(name: str | None = None) -> PromptVersion:
    """A version by name; the manifest's current version when none is named."""
    manifest = load_manifest()
    name = manifest.current if name is None else name
    entry = manifest.versions.get(name)
    if entry is None:
        valid = ", ".join(manifest.versions)
        raise InputError(
            [f"-T prompt_version={name!r}: not in {MANIFEST.name}; valid versions: {valid}"]
        )
    # The file holds exactly the instruction text; only the editor's final newline is not part
    # of it, so every case gets a byte-identical prefix.
    text = read_text(PROMPT_DIR / entry.file).removesuffix("\n")
    return PromptVersion(
        name=name,
        instructions=text,
        date=entry.date,
        changed=entry.changed,
        motivating_cases=entry.motivating_cases,
        render=entry.render,
    )
