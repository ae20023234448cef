"""Which cases one shard of a run judges: a split of the case set by each case's id hash.

`-T shard=i/N` (0 <= i < N) runs the cases whose family falls to shard i. A derived case goes
with its gold case (its family), so the consistency figure keeps its parents. The split is by
id, not content: an edited case stays in its shard, so a rerun of that shard alone judges it.

No Inspect import at run time: the comparison reads shards from logs, and importing Inspect
takes seconds.
"""

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample


@dataclass(frozen=True)
class Shard:
    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def holds(self, sample: "Sample") -> bool:
        return self.holds_family(str((sample.metadata or {}).get("derived_from", sample.id)))

    def holds_family(self, family: str) -> bool:
        """Whether the case family with this id (a case's own id, or its gold case's) is
        this shard's: a draft is split by its id before it is rendered."""
        digest = hashlib.sha256(family.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index


def parse_shard(value: object) -> Shard | None:
    """The shard `value` (`i/N`) names, None for None; a ValueError saying what a shard
    looks like otherwise."""
    if value is None:
        return None
    index, sep, count = str(value).partition("/")
    if sep and index.strip().isdigit() and count.strip().isdigit():
        shard = Shard(int(index), int(count))
        if shard.count >= 1 and shard.index < shard.count:
            return shard
    raise ValueError(
        f"-T shard={value!r}: give i/N with 0 <= i < N (e.g. shard=0/4 for the first of four)"
    )


def check_shard(value: object) -> Shard | None:
    """The `-T shard=i/N` value, or a one-line error saying what a shard looks like."""
    # Here, not at the top: InputError imports Inspect, which the comparison, reading shards
    # from logs, must not wait seconds for.
    from farejudge.core.errors import InputError

    try:
        return parse_shard(value)
    except ValueError as err:
        raise InputError([str(err)]) from err


def shard_samples(samples: "list[Sample]", shard: Shard | None) -> "list[Sample]":
    """The samples of one shard (all of them with no shard)."""
    return samples if shard is None else [s for s in samples if shard.holds(s)]
