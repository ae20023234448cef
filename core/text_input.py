"""Text files as the project reads them: UTF-8, or one line that names the file, line and byte.

Every file a user gives (case files, drafts, labels, assistant logs, the intake mapping, the
prompt manifest, the price file, the labelling guide) is bytes that must be UTF-8. Where they
are not, Python's own error names a position in a decoder's buffer and comes with a traceback;
here it is `file:line: byte 0xff at offset 3456 is not UTF-8`, the offset counted in bytes from
the start of the file, as `cmp` and `dd skip=` count.
"""

from pathlib import Path

from farejudge.core.errors import InputError


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it.
    The file itself is not resolved: a file of a set is a link into the set's hidden folder
    (`farejudge.core.atomic_files.write_together`), and its name is the one to show."""
    try:
        return str((path.parent.resolve() / path.name).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def dotted(loc: tuple[int | str, ...]) -> str:
    """A pydantic error's location as a dotted path on one line: a key the file wrote with a
    line break or other unprintable character in it is quoted, escapes and all."""
    return ".".join(str(p) if str(p).isprintable() else repr(p) for p in loc)


def bad_byte(data: bytes, err: UnicodeDecodeError, offset: int = 0) -> str:
    """What `err` found in `data` (which starts `offset` bytes into its file), as the user
    reads it."""
    return f"byte 0x{data[err.start]:02x} at offset {offset + err.start} is not UTF-8"


def line_of(data: bytes, position: int) -> int:
    """The line `data[position]` is on, counting LF, CRLF and a lone CR each as one break,
    as the JSON Lines reader and a text editor do."""
    before = data[:position]
    return before.count(b"\n") + before.count(b"\r") - before.count(b"\r\n") + 1


def decode(data: bytes, where: str) -> str:
    """`data` as text; InputError `where:line: byte ... is not UTF-8` if it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = line_of(data, err.start)
        raise InputError([f"{where}:{line}: {bad_byte(data, err)}"]) from None


def read_text(path: Path, where: str | None = None) -> str:
    """The whole file as text, or an InputError of one line naming it (`where`, by default the
    path as shown): it cannot be read, or where its first byte that is not UTF-8 is."""
    name = shown(path) if where is None else where
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError([f"{name}: {err.strerror or err}"]) from None
    return decode(data, name)
