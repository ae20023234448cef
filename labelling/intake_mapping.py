"""Where each case field sits in one record of the assistant's logs: a small TOML config.

Paths are dotted keys into the record's JSON ("conversation.query"). Without a config, the
log is taken to use the case schema's own field names. An example, with comments, is
tests/fixtures/assistant_log_mapping.toml.
"""

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from farejudge.core.errors import InputError
from farejudge.core.text_input import dotted, read_text

_CONFIG = ConfigDict(extra="forbid", frozen=True)


class TurnMapping(BaseModel):
    model_config = _CONFIG

    role: str = "role"
    content: str = "content"
    roles: dict[str, str] = Field(
        default_factory=dict,
        description="the log's speaker names → the case's roles (user, assistant)",
    )


class PassageMapping(BaseModel):
    model_config = _CONFIG

    agency: str = "agency"
    title: str = "title"
    section: str = "section"
    url: str = "url"
    fetched: str = "fetched"
    text: str = "text"


class IntakeMapping(BaseModel):
    model_config = _CONFIG

    record_id: str | None = Field(
        default="id", description="the log's own record id, named in errors and in `source`"
    )
    question: str = "question"
    prior_turns: str | None = Field(
        default="prior_turns", description="absent in logs of single-turn assistants"
    )
    passages: str = "passages"
    answer: str = "answer"
    turn: TurnMapping = TurnMapping()
    passage: PassageMapping = PassageMapping()


def load_mapping(path: Path | None) -> IntakeMapping:
    if path is None:
        return IntakeMapping()
    text = read_text(path, str(path))
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError([f"{path}: not a readable TOML mapping ({err})"]) from None
    try:
        return IntakeMapping.model_validate(raw)
    except ValidationError as err:
        raise InputError(
            [f"{path}: {dotted(e['loc'])}: {e['msg']}" for e in err.errors()]
        ) from None


class Missing(LookupError):
    """A dotted path that is not in the record; its message is the path."""


def pick(record: Any, path: str) -> Any:
    """The value at a dotted path in a JSON value."""
    value = record
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            raise Missing(path)
        value = value[key]
    return value
