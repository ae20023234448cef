"""Which cases a run judges: the gold set, or the gold set with its metamorphic derivations or
its attacked cases.

In the metamorphic and adversarial suites each derived case sits beside the gold case it came
from, so one run tells both whether the judge got a relation right and whether it stayed right
where it had the gold case right (CheckList's failure rate; for an attack, its success).
"""

from collections.abc import Sequence

from inspect_ai.dataset import Sample

from farejudge.core.case_schema import Case
from farejudge.core.errors import InputError
from farejudge.core.sample_case import GOLD_RELATION
from farejudge.evals.adversarial.derive import check_derived, check_families, derive_attacks
from farejudge.evals.dataset import case_to_sample
from farejudge.evals.fingerprint import case_hash
from farejudge.evals.metamorphic.derive import derive_suite
from farejudge.evals.prompt_versions import PromptVersion
from farejudge.evals.sample_order import prompt_text, shared_prefix_order

SUITES = ("gold", "metamorphic", "adversarial")


def check_suite(suite: object) -> str:
    if suite not in SUITES:
        raise InputError([f"-T suite={suite!r}: give {' or '.join(SUITES)}"])
    return str(suite)


def check_suite_families(suite: str, families: object) -> tuple[str, ...] | None:
    """`-T families=` checked: only with the adversarial suite, each a known family."""
    if families is None:
        return None
    if suite != "adversarial":
        raise InputError([f"-T families=: only with -T suite=adversarial, not {suite!r}"])
    names = families if isinstance(families, list) else str(families).split(",")
    try:
        return check_families([str(n) for n in names])
    except InputError as err:
        raise InputError([f"-T {problem}" for problem in err.problems]) from None


def suite_samples(
    cases: Sequence[Case],
    suite: str,
    version: PromptVersion,
    families: Sequence[str] | None = None,
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
    if suite == "adversarial":
        attacks = derive_attacks(cases, families)
        try:
            check_derived(attacks)
        except InputError as err:
            raise InputError([f"-T {problem}" for problem in err.problems]) from None
        for attacked in attacks.cases:
            case = attacked.as_case()
            family[attacked.derived_from].append(
                case_to_sample(
                    case,
                    version,
                    relation=attacked.family,
                    derived_from=attacked.derived_from,
                    family=attacked.family,
                    kind=attacked.kind,
                    direction=attacked.direction,
                    gold="grounded" if case.label.grounded else "ungrounded",
                )
            )
            hashes[case.id] = case_hash(case)
    ordered = shared_prefix_order(list(family.values()), lambda members: prompt_text(members[0]))
    return [sample for members in ordered for sample in members], hashes
