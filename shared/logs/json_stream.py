"""The items of a JSON array read one at a time from a byte stream, in bounded memory.

For Inspect's logs: a .eval log's summaries are one JSON array, a .json log's samples an
array inside its top-level object, and either can hold hundreds of megabytes. The standard
library's decoder parses each item (it reads the NaN and Infinity Inspect writes, which
ijson's C backend refuses); only the current item and one read chunk are held.
"""

import codecs
import json
from collections.abc import Iterator
from typing import IO, Any

_CHUNK = 1 << 22
_SPACE = " \t\r\n"


class JsonStreamError(ValueError):
    """The stream is not the JSON expected; the message says where."""


class _Reader:
    def __init__(self, stream: IO[bytes], chunk: int) -> None:
        self._stream = stream
        self._chunk = chunk
        self._text = codecs.getincrementaldecoder("utf-8")()
        self._decode = json.JSONDecoder().raw_decode
        self._buffer = ""
        self._pos = 0
        self._eof = False
        self._consumed = 0

    def _more(self) -> bool:
        """Read on; False at the end of the stream. Reads grow with the buffer, so a value
        larger than a chunk is re-parsed a few times, not once per chunk."""
        if self._eof:
            return False
        data = self._stream.read(max(self._chunk, len(self._buffer) - self._pos))
        self._eof = not data
        self._consumed += self._pos
        self._buffer = self._buffer[self._pos :] + self._text.decode(data, final=self._eof)
        self._pos = 0
        return True

    def peek(self) -> str:
        """The next character that is not white space; "" at the end of the stream."""
        while True:
            buffer, pos = self._buffer, self._pos
            while pos < len(buffer) and buffer[pos] in _SPACE:
                pos += 1
            self._pos = pos
            if pos < len(buffer):
                return buffer[pos]
            if not self._more():
                return ""

    def take(self, expected: str) -> None:
        found = self.peek()
        if found != expected:
            raise JsonStreamError(
                f"expected {expected!r} at character {self._consumed + self._pos}, "
                f"found {found or 'the end'!r}"
            )
        self._pos += 1

    def value(self) -> Any:
        self.peek()
        while True:
            try:
                found, end = self._decode(self._buffer, self._pos)
            except json.JSONDecodeError as err:
                if self._more():
                    continue
                where = self._consumed + err.pos
                raise JsonStreamError(f"at character {where}: {err.msg}") from err
            # A number that ends the buffer may go on in the next chunk.
            if end == len(self._buffer) and self._more():
                continue
            self._pos = end
            return found


def _items(reader: _Reader) -> Iterator[Any]:
    reader.take("[")
    if reader.peek() == "]":
        reader.take("]")
        return
    while True:
        yield reader.value()
        if reader.peek() == "]":
            reader.take("]")
            return
        reader.take(",")


def array_items(stream: IO[bytes], chunk: int = _CHUNK) -> Iterator[Any]:
    """The items of the JSON array that is the whole stream."""
    yield from _items(_Reader(stream, chunk))


def member_items(stream: IO[bytes], key: str, chunk: int = _CHUNK) -> Iterator[Any]:
    """The items of the array at `key` of the JSON object that is the whole stream; the
    object's other members are parsed and dropped. Nothing if it has no such member."""
    reader = _Reader(stream, chunk)
    reader.take("{")
    if reader.peek() == "}":
        return
    while True:
        name = reader.value()
        reader.take(":")
        if name == key and reader.peek() == "[":
            yield from _items(reader)
        else:
            reader.value()
        if reader.peek() == "}":
            return
        reader.take(",")
