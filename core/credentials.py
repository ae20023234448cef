"""The credentials a run holds, and text with each one shown by its name instead.

A server may quote back the credential it was sent, inside an error text that ends up in a
log or on the terminal. Any value that is a credential is replaced by `[NAME redacted]`, NAME
being the variable or argument it came from, and the text around it is kept.
"""

import functools
import json
import os
import re
from collections.abc import Iterable, Mapping

# Names that mark a value as secret: of an environment variable, or of a model argument.
_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
# Shorter values ("none", "dummy", "1") are words a log holds anyway: replacing each of them
# would garble the log and protect nothing.
MIN_SECRET_CHARS = 8

_given: dict[str, str] = {}
"""Credential → the name it is shown by, for keys a provider was handed directly
(`-M api_key=…`), which no environment variable holds."""


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def remember(name: str, value: str) -> None:
    """Redact `value` from now on, as `name`: a credential given other than in the environment."""
    if len(value) >= MIN_SECRET_CHARS:
        _given.setdefault(value, name)


class Redactor:
    """Replaces each of a set of credentials, longest first, with its name."""

    def __init__(self, names: Mapping[str, str]) -> None:
        self._names = dict(names)
        # Longest first: the regex takes the first alternative that matches, so a credential
        # that contains another is replaced whole.
        ordered = sorted(self._names, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
        # As a file holds each: JSON escapes quotes and backslashes, and may escape non-ASCII.
        self._written = {
            form.encode(): f"[{self._names[value]} redacted]".encode()
            for value in ordered
            for form in _json_forms(value)
        }
        # Longest first, as above.
        written = sorted(self._written, key=len, reverse=True)
        self._bytes = re.compile(b"|".join(map(re.escape, written))) if written else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def __call__(self, text: str) -> str:
        """`text` with every credential replaced; `text` itself where it holds none."""
        if self._pattern is None or not self._pattern.search(text):
            return text
        return self._pattern.sub(lambda found: f"[{self._names[found.group()]} redacted]", text)

    def found_in(self, data: bytes) -> bool:
        """Whether the bytes of a text file, JSON included, hold any of the credentials."""
        return self._bytes is not None and self._bytes.search(data) is not None

    def redact_bytes(self, data: bytes) -> bytes:
        """The bytes of a text file, JSON included, with every credential replaced by its
        name, as written text holds it: the replacement needs no escaping in JSON."""
        if self._bytes is None:
            return data
        return self._bytes.sub(lambda found: self._written[found.group()], data)

    @property
    def written(self) -> dict[str, str]:
        """Each credential as a file may hold it (as is, or escaped as JSON writes it), and
        what replaces it there."""
        return {form.decode(): name.decode() for form, name in self._written.items()}


def _json_forms(value: str) -> set[str]:
    return {value, json.dumps(value)[1:-1], json.dumps(value, ensure_ascii=False)[1:-1]}


def redactor(named_values: Iterable[tuple[str, object]] = ()) -> Redactor:
    """The credentials known now: the environment's, those remembered, and `named_values`'.

    A value counts where its name marks it as secret. The environment is read on each call:
    a run may set a key there after it starts.
    """
    # Inspect's log handler calls this for every record: of the environment, only a secret
    # name's value is read (reading every value was most of the cost).
    secret_named = [
        *((name, os.environ.get(name)) for name in os.environ if is_secret_name(name)),
        *((name, value) for name, value in named_values if is_secret_name(name)),
    ]
    names: dict[str, str] = {}
    for name, value in secret_named:
        if isinstance(value, str) and len(value) >= MIN_SECRET_CHARS:
            names.setdefault(value, name)
    # A key that is also in the environment is named by its variable.
    return _redactor(frozenset({**_given, **names}.items()))


# Called for every record Inspect logs: the patterns are compiled once per set of credentials.
@functools.lru_cache(maxsize=64)
def _redactor(names: frozenset[tuple[str, str]]) -> Redactor:
    return Redactor(dict(names))


def redact_secrets(text: str) -> str:
    """`text` with every credential known now replaced by its name."""
    return redactor()(text)
