"""The JSON Lines reader: line numbers and byte offsets as a user counts them, bytes that are not
UTF-8 named in one line each, and ids checked for duplicates without holding them."""

from pathlib import Path

import pytest

from farejudge.core import jsonl_records
from farejudge.core.errors import InputError
from farejudge.core.jsonl_records import FirstSeen, json_values, text_lines
from farejudge.core.text_input import decode, line_of, read_text


def lines(path: Path) -> tuple[list[tuple[int, str | None]], list[str]]:
    problems: list[str] = []
    return list(text_lines(path, "case", problems.append)), problems


def test_a_byte_that_is_not_utf8_names_its_line_and_offset(tmp_path: Path) -> None:
    # Line 1 ends in CRLF, 2 in a lone CR, 3 is blank, 4 holds the bad byte, 5 has no newline.
    data = b'{"a": 1}\r\n{"b": 2}\r\r\n{"c": "caf\xe9"}\n{"d": 4}'
    path = tmp_path / "cases.jsonl"
    path.write_bytes(data)
    found, problems = lines(path)
    offset = data.index(b"\xe9")
    assert problems == [f"{path}:4: case ?: byte 0xe9 at offset {offset} is not UTF-8"]
    assert found == [(1, '{"a": 1}'), (2, '{"b": 2}'), (3, ""), (4, None), (5, '{"d": 4}')]


@pytest.mark.parametrize(
    "data",
    [b"a\nb\n", b"a\r\nb\r\n", b"a\rb\r", b"a\r\r\nb", b"\n\n\r\r\n", b"x", b"a\r", b""],
)
def test_lines_are_split_as_universal_newlines_split_them(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    with path.open(encoding="utf-8", newline=None) as f:
        expected = [line.removesuffix("\n") for line in f]
    found, problems = lines(path)
    assert not problems
    assert [text for _, text in found] == expected
    assert [n for n, _ in found] == list(range(1, len(expected) + 1))


def test_offsets_count_bytes_from_the_start_of_the_file(tmp_path: Path) -> None:
    # "é" is two bytes, so a character count would be one short after each.
    data = "é\r\né\ré\n".encode() + b"\xff"
    path = tmp_path / "f.jsonl"
    path.write_bytes(data)
    _, problems = lines(path)
    assert problems == [f"{path}:4: case ?: byte 0xff at offset {len(data) - 1} is not UTF-8"]
    assert line_of(data, len(data) - 1) == 4


def test_a_cut_character_at_the_end_is_named_too(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes('{"a": "é"}\n{"a": "é'.encode()[:-1])
    _, problems = lines(path)
    assert problems == [f"{path}:2: case ?: byte 0xc3 at offset 19 is not UTF-8"]


def test_a_binary_file_is_not_a_flood(tmp_path: Path) -> None:
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\xff\n" * 500)
    _, problems = lines(path)
    assert len(problems) == jsonl_records.UTF8_SHOWN + 1
    assert problems[-1] == f"{path}: case ?: 490 more lines are not UTF-8"


def test_a_line_too_long_is_named_and_skipped_without_being_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(jsonl_records, "MAX_LINE", 16)
    path = tmp_path / "f.jsonl"
    path.write_bytes(b'{"a": 1}\n' + b"x" * 100 + b'\n{"b": 2}\n')
    found, problems = lines(path)
    assert problems == [f"{path}:2: case ?: longer than 16 bytes; not read"]
    assert found == [(1, '{"a": 1}'), (2, None), (3, '{"b": 2}')]


def test_nul_and_bad_bytes_read_alike(tmp_path: Path) -> None:
    """A NUL byte is valid UTF-8 that JSON refuses; 0xff is not UTF-8: both are one line that
    starts with file:line and the record."""
    path = tmp_path / "f.jsonl"
    data = b'{"id": "\x00"}\n{"id": "\xff"}\n'
    path.write_bytes(data)
    problems: list[str] = []
    assert list(json_values(path, "case", problems.append)) == []
    nul, bad = problems
    assert nul.startswith(f"{path}:1: case ?: not valid JSON (Invalid control character")
    offset = data.index(b"\xff")
    assert bad == f"{path}:2: case ?: byte 0xff at offset {offset} is not UTF-8"


def test_a_missing_or_unreadable_file_is_one_line(tmp_path: Path) -> None:
    _, problems = lines(tmp_path / "nope.jsonl")
    assert problems == [f"{tmp_path / 'nope.jsonl'}: No such file or directory"]
    _, problems = lines(tmp_path)
    assert problems == [f"{tmp_path}: Is a directory"]


def test_whole_file_reads_name_the_line_and_offset(tmp_path: Path) -> None:
    path = tmp_path / "mapping.toml"
    path.write_bytes(b'question = "q"\r\nanswer = "\x81"\n')
    with pytest.raises(InputError) as err:
        read_text(path, "mapping.toml")
    assert err.value.problems == ["mapping.toml:2: byte 0x81 at offset 26 is not UTF-8"]
    assert decode(b"ok", "x") == "ok"


def test_first_seen_keeps_the_first_value_across_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(FirstSeen, "_MERGE_AT", 7)
    seen = FirstSeen()
    ids = [f"prod-{i:010x}" for i in range(100)]
    assert [seen.first(text, n) for n, text in enumerate(ids)] == [None] * 100
    assert [seen.first(text, 999) for text in ids] == list(range(100))
    assert seen.first("another", 5) is None
