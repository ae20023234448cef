"""A scorer found again under the name a log records for it, for `inspect score LOG`.

Inspect registers a package's scorer under the package's name (`farejudge/verdict_agreement`),
records it in a log without it, and `inspect score LOG` looks up the name as the log has it,
which no entry point is loaded for: registered under that name too, the plain command finds
the scorer. (The entry point module has loaded the scorer's by then: Inspect loads every entry
point as it starts.)
"""

from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import Scorer
from inspect_ai.util import RegistryInfo, registry_info

from farejudge.core.inspect_internals import registry_add


def register_logged_name(scorer: Callable[..., Scorer], name: str) -> None:
    """Register `scorer` (a scorer function) under `name` as well, taking what it takes."""

    def as_logged(*args: Any, **kwargs: Any) -> Scorer:
        return scorer(*args, **kwargs)

    registry_add(
        as_logged,
        RegistryInfo(type="scorer", name=name, metadata=registry_info(scorer).metadata),
    )
