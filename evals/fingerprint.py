"""Content hashes that let a log say exactly what it measured.

A case's hash is over its canonical JSON (sorted keys, no spacing, UTF-8), so the same
case gives the same hash on any machine and in any file order; a changed comma in its
rationale is a different case. The case set's hash is over its (id, hash) pairs in id order.
"""

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from farejudge.core.case_schema import Case


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def case_hash(case: Case) -> str:
    return sha256(canonical_json(case.model_dump(mode="json")))


def case_set_hash(case_hashes: Mapping[str, str]) -> str:
    return sha256(canonical_json(sorted(case_hashes.items())))
