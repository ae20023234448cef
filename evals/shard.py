"""The task's side of sharding: the `-T shard=i/N` option checked, and the samples it keeps.

What a shard is and how a case falls to one: `farejudge.evals.shard_spec`.
"""

from inspect_ai.dataset import Sample

from farejudge.core.errors import InputError
from farejudge.evals.shard_spec import Shard, parse_shard

__all__ = ["Shard", "check_shard", "shard_samples"]


def check_shard(value: object) -> Shard | None:
    """The `-T shard=i/N` value, or a one-line error saying what a shard looks like."""
    try:
        return parse_shard(value)
    except ValueError as err:
        raise InputError([str(err)]) from err


def shard_samples(samples: list[Sample], shard: Shard | None) -> list[Sample]:
    return samples if shard is None else [s for s in samples if shard.holds(s)]
