"""The streamed JSON reader: the same items at any chunk size, NaN as Inspect writes it,
other members skipped, broken JSON one error."""

import io
import json
import math

import pytest

from farejudge.shared.logs.json_stream import JsonStreamError, array_items, member_items


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_array_items_at_any_chunk_size(chunk: int) -> None:
    items = [{"a": 1.5, "b": [1, {"c": "x ] , {"}], "n": None}, 12345, "é", [], {}]
    data = json.dumps(items).encode() + b"  \n"
    assert list(array_items(io.BytesIO(data), chunk=chunk)) == items


def test_array_items_read_nan_as_inspect_writes_it() -> None:
    (item,) = array_items(io.BytesIO(b'[{"v": NaN}]'), chunk=2)
    assert math.isnan(item["v"])


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_member_items_skip_the_other_members(chunk: int) -> None:
    log = {"eval": {"x": [1, 2]}, "samples": [{"id": 1}, {"id": 2}], "after": {"y": "}"}}
    found = list(member_items(io.BytesIO(json.dumps(log).encode()), "samples", chunk=chunk))
    assert found == log["samples"]
    assert list(member_items(io.BytesIO(b'{"eval": {}}'), "samples")) == []


@pytest.mark.parametrize("data", [b"[1, 2", b'[{"a": 1} {"b": 2}]', b"{}", b"[1,]"])
def test_broken_json_is_one_error(data: bytes) -> None:
    with pytest.raises(JsonStreamError):
        list(array_items(io.BytesIO(data), chunk=3))
