"""The policy corpus (datasets/corpus/<agency>/*.md) as sections a case's passage can quote.

Each document opens with YAML front matter (agency, title, url, fetched) and is cut into
`## Section`s; a gold passage is a verbatim part of one section, with the document's agency,
title, url and fetched date. Read once per folder and cached.
"""

import datetime
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from farejudge.core.case_schema import Passage
from farejudge.core.package_data import DATASETS
from farejudge.evals.metamorphic.text_edits import addressed_to_judge

DEFAULT_CORPUS = DATASETS / "corpus"


@dataclass(frozen=True)
class Section:
    path: str
    """The document's path relative to the corpus folder, with `/` separators."""
    agency: str
    title: str
    url: str
    fetched: str
    section: str
    text: str

    @property
    def addressed_to_judge(self) -> bool:
        return addressed_to_judge(self.text)

    def as_passage(self, tag: str) -> Passage:
        return Passage(
            tag=tag,
            agency=self.agency,
            title=self.title,
            section=self.section,
            url=self.url,
            fetched=self.fetched,
            text=self.text,
        )


def _front_matter(text: str, path: Path) -> tuple[dict[str, str], str]:
    match = re.match(r"---\n(.*?)\n---\n", text, re.DOTALL)
    if not match:
        raise ValueError(f"{path}: no front matter")
    meta = yaml.safe_load(match.group(1))
    if not isinstance(meta, dict):
        raise ValueError(f"{path}: front matter is not a mapping")
    fields: dict[str, str] = {}
    for key in ("agency", "title", "url", "fetched"):
        value = meta.get(key)
        if isinstance(value, datetime.date):
            value = value.isoformat()
        if not isinstance(value, str) or not value:
            raise ValueError(f"{path}: front matter has no {key}")
        fields[key] = value
    return fields, text[match.end() :]


def _sections(body: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    heading: str | None = None
    lines: list[str] = []
    for line in [*body.splitlines(), "## "]:
        if line.startswith("## "):
            if heading is not None and "\n".join(lines).strip():
                found.append((heading, "\n".join(lines).strip()))
            heading, lines = line[3:].strip(), []
        elif heading is not None:
            lines.append(line)
    return found


@functools.lru_cache(maxsize=8)
def load_corpus(root: Path = DEFAULT_CORPUS) -> tuple[Section, ...]:
    """Every section of every document under `root`, in path and document order."""
    sections: list[Section] = []
    for path in sorted(root.glob("*/*.md"), key=lambda p: p.relative_to(root).as_posix()):
        meta, body = _front_matter(path.read_text(encoding="utf-8"), path)
        for heading, text in _sections(body):
            sections.append(
                Section(
                    path=path.relative_to(root).as_posix(),
                    section=heading,
                    text=text,
                    **meta,
                )
            )
    return tuple(sections)
