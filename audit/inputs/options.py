"""What several of judge-audit's verbs share: their options, checked where they come in (one
line each naming the flag and what it takes), and writing a report's three files."""

import argparse
import sys
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from farejudge.core.atomic_files import Writer, write_together
from farejudge.core.errors import InputError
from farejudge.shared.document import html, markdown
from farejudge.shared.document.model import Section


class Arguments(Protocol):
    """A parser, an argument group or a mutually exclusive group: what takes arguments."""

    def add_argument(self, *args: Any, **kwargs: Any) -> Any: ...


def share(text: str) -> float:
    """A number in [0, 1] (a rate, a threshold)."""
    value = _number(text)
    # Written so that NaN, which compares false with everything, is refused too.
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: give a number from 0 to 1")
    return value


def open_share(text: str) -> float:
    """A number strictly between 0 and 1 (alpha, a half-width, an expected rate)."""
    value = _number(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text}: give a number strictly between 0 and 1")
    return value


def count(text: str) -> int:
    """A whole number of 1 or more."""
    return _whole(text, least=1)


def seed(text: str) -> int:
    """A whole number of 0 or more."""
    return _whole(text, least=0)


def _whole(text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a whole number") from None
    if value < least:
        raise argparse.ArgumentTypeError(f"{text}: give {least} or more")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: give a number") from None


def add_alpha(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--alpha",
        type=open_share,
        default=0.05,
        help=f"{what} (default 0.05)",
    )


def add_decision(parser: Arguments, what: str) -> None:
    parser.add_argument("--decision", type=Path, metavar="decision.json", help=what)


def write_files(out: Path, files: dict[str, Writer]) -> list[Path]:
    """The named files in `out`, replacing the previous ones together or not at all: one set,
    named after its first file (sample.json's set is `sample`)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError([f"--out {out}: {err.strerror or err}"]) from None
    return write_together(out, Path(next(iter(files))).stem, files)


def write_report(
    out: Path, stem: str, record: BaseModel, sections: list[Section], quiet: bool
) -> None:
    """`stem`.json (the record), `stem`.md and `stem`.html (its report) in `out`, together or
    not at all; the Markdown printed unless `quiet`, and the files named on stderr."""
    text = markdown.render(sections)
    written = write_files(
        out,
        {
            f"{stem}.json": lambda stream: stream.write(record.model_dump_json(indent=2) + "\n"),
            f"{stem}.md": lambda stream: stream.write(text),
            f"{stem}.html": lambda stream: stream.write(html.render(sections)),
        },
    )
    if not quiet:
        print(text)
    print(f"{stem}: {', '.join(str(path) for path in written)}", file=sys.stderr)
