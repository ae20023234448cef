"""A period's population named by its content: the hash the audit sample and the production
judge's log both record, so that a sample is never laid against drafts it was not drawn from.

No import beyond the standard library: the production task computes it as it loads the
drafts, and the audit's statistics compute it as they draw a sample.
"""

import hashlib
from collections.abc import Mapping


def population_hash(drafts: Mapping[str, str]) -> str:
    """SHA-256 of the drafts (id -> content) in id order: any change of an id or a content,
    a draft added or removed, changes it; the order they come in does not.

    A drafts file's population is each draft's id and content hash (`Draft.content_sha256`).
    """
    found = hashlib.sha256()
    for draft in sorted(drafts):
        name = draft.encode("utf-8")
        found.update(len(name).to_bytes(8, "big") + name)
        found.update(hashlib.sha256(drafts[draft].encode("utf-8")).digest())
    return found.hexdigest()
