"""Which cases a run judges: the gold set, or the gold set with its metamorphic derivations.

In the metamorphic suite each derived case sits beside the gold case it came from, so one run
tells both whether the judge got a relation right and whether it stayed right where it had
the gold case right (CheckList's failure rate).
"""

from collections.abc import Sequence

from inspect_ai.dataset import Sample

from farejudge.core.case_schema import Case
from farejudge.core.errors import InputError
from farejudge.evals.dataset import case_to_sample
from farejudge.evals.fingerprint import case_hash
from farejudge.evals.metamorphic.derive import derive_suite
from farejudge.evals.prompt_versions import PromptVersion
from farejudge.evals.sample_order import prompt_text, shared_prefix_order

SUITES = ("gold", "metamorphic")
GOLD_RELATION = "gold"
"""The relation of an unedited gold case."""


def check_suite(suite: object) -> str:
    if suite not in SUITES:
        raise InputError([f"-T suite={suite!r}: give {' or '.join(SUITES)}"])
    return str(suite)


def suite_samples(
    cases: Sequence[Case], suite: str, version: PromptVersion
) -> tuple[list[Sample], dict[str, str]]:
    """The samples of the suite, and each case's content hash by id.

    Each gold case comes with its derived cases right after it, so `--limit` runs whole
    families and the consistency figure has parents to go by. Families run in the order that
    lets a local judge's KV cache reuse the most of each prompt (`sample_order.py`).
    """
    family: dict[str, list[Sample]] = {
        c.id: [case_to_sample(c, version, relation=GOLD_RELATION)] for c in cases
    }
    hashes = {c.id: case_hash(c) for c in cases}
    if suite == "metamorphic":
        for derived in derive_suite(cases).cases:
            case = derived.as_case()
            family[derived.derived_from].append(
                case_to_sample(
                    case,
                    version,
                    relation=derived.relation,
                    derived_from=derived.derived_from,
                    edit=derived.edit,
                )
            )
            hashes[case.id] = case_hash(case)
    families = shared_prefix_order(list(family.values()), lambda members: prompt_text(members[0]))
    return [sample for members in families for sample in members], hashes
