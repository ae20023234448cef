"""The audit sample: which of a period's drafts the team labels, drawn again from its record.

A draw is a function of the seed and the population, nothing else: each draft gets a key, the
first 8 bytes of SHA-256 over the seed, the population's content hash and the draft's id, and
the sample is the `size` drafts with the smallest keys (within each stratum, for a stratified
design). The keys behave as independent uniform draws, so every set of `size` drafts is equally
likely: a uniform sample without replacement. The same seed over the same population gives the
same sample, in the same order (the labelling order), on any machine and with any library
version; the population hash in the record detects a sample laid against other drafts, and
the estimate draws the sample again from the record and refuses any difference
(`sampling.check_drawn`).

The stratified design (labelling more of what the judge flags) draws a fixed number from each
stratum; a labelled draft then weighs its stratum's size over its stratum's labels (its inverse
inclusion probability), the weights the estimate's PPI takes. A judge held to a confidence
threshold gives the strata of selective judging: every answer it escalated, drawn in full
(inclusion probability 1, as people review them anyway), beside a uniform sample of the answers
it decided alone.
"""

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel, ConfigDict

from farejudge.audit.stats.arrays import Floats, as_floats
from farejudge.core.population import population_hash

ALL = "all"
"""The one stratum of a uniform design."""
FLAGGED = "flagged"
"""Drafts the judge flagged (prediction at or above the cut) or failed on."""
PASSED = "passed"
"""Drafts the judge passed."""
ESCALATED = "escalated"
"""Drafts the judge did not decide alone (under its confidence threshold): labelled in full."""
DECIDED = "decided"
"""Drafts the judge decided alone."""


class Stratum(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    population: int
    """Drafts of the period in the stratum."""
    size: int
    """Drafts drawn from it."""


class AuditSample(BaseModel):
    """A drawn sample and everything needed to draw it again and weigh its labels."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    design: Literal["uniform", "stratified"]
    seed: int
    population_hash: str
    """`population_hash` of the drafts it was drawn from."""
    population: int
    strata: tuple[Stratum, ...]
    ids: tuple[str, ...]
    """The drawn drafts, in the order drawn (the order to label them in)."""
    stratum_of: tuple[str, ...]
    """Each drawn draft's stratum."""
    strata_from: tuple[str, ...] = ()
    """A stratified sample's judged logs (their file names), whose verdicts are its strata:
    the logs of a later retry may judge an outage the sample drew as the judge's failure."""

    def strata_of(self, labelled: Sequence[str]) -> list[str]:
        """The stratum of each labelled draft, in the order given; a ValueError names a draft
        not in the sample."""
        drawn = dict(zip(self.ids, self.stratum_of, strict=True))
        outside = [draft for draft in labelled if draft not in drawn]
        if outside:
            raise ValueError(f"draft {outside[0]!r} is labelled but not in the sample")
        return [drawn[draft] for draft in labelled]

    def weights(self, labelled: Sequence[str]) -> Floats | None:
        """The labelled drafts' weights for the estimate, in the order given: None for a uniform
        sample; for a stratified one each stratum's size over its labelled drafts.

        A stratum whose drawn drafts are not all labelled shares its weight among those that
        are (treating the missing labels as missing at random). A ValueError names a draft not
        in the sample, or a stratum with drafts but no label.
        """
        strata = self.strata_of(labelled)
        if self.design == "uniform":
            return None
        sizes = {s.name: s.population for s in self.strata}
        return inverse_inclusion(sizes, strata)


def _keys(ids: Sequence[str], seed: int, population: str) -> list[int]:
    prefix = hashlib.sha256(f"{seed}\x00{population}\x00".encode())
    keys = []
    for draft in ids:
        h = prefix.copy()
        h.update(draft.encode("utf-8"))
        keys.append(int.from_bytes(h.digest()[:8], "big"))
    return keys


def draw_uniform(drafts: Mapping[str, str], size: int, seed: int) -> AuditSample:
    """A uniform random sample of `size` of the drafts (id -> content), reproducible from `seed`
    and the drafts."""
    return _draw(drafts, dict.fromkeys(drafts, ALL), {ALL: size}, seed, "uniform")


def draw_stratified(
    drafts: Mapping[str, str],
    strata: Mapping[str, str],
    allocation: Mapping[str, int],
    seed: int,
) -> AuditSample:
    """A uniform sample of `allocation[h]` drafts within each stratum h, `strata` naming every
    draft's stratum (`strata_by_verdict` for the judge's verdicts). Every stratum with drafts
    needs at least one draw, or its rate would go unmeasured."""
    return _draw(drafts, strata, allocation, seed, "stratified")


def _draw(
    drafts: Mapping[str, str],
    strata: Mapping[str, str],
    allocation: Mapping[str, int],
    seed: int,
    design: Literal["uniform", "stratified"],
) -> AuditSample:
    if seed < 0:
        raise ValueError(f"the seed must be a non-negative integer, not {seed}")
    if not drafts:
        raise ValueError("no drafts to draw from")
    if set(strata) != set(drafts):
        missing = sorted(set(drafts) ^ set(strata))
        raise ValueError(f"draft {missing[0]!r} has a stratum or a content but not both")
    sizes = Counter(strata.values())
    for name, count in sorted(sizes.items()):
        wanted = allocation.get(name, 0)
        if wanted < 1:
            raise ValueError(f"stratum {name!r} has {count} drafts but no draw")
        if wanted > count:
            raise ValueError(f"{wanted} drafts to draw from stratum {name!r} of {count}")
    unknown = sorted(set(allocation) - set(sizes))
    if unknown:
        raise ValueError(f"stratum {unknown[0]!r} has a draw but no draft")
    hashed = population_hash(drafts)
    ids = sorted(drafts)
    # Sorted ids first: a stable sort on the keys then breaks a (vanishingly rare) tie by id.
    order = np.argsort(np.array(_keys(ids, seed, hashed), dtype=np.uint64), kind="stable")
    taken: Counter[str] = Counter()
    chosen = []
    for i in order:
        name = strata[ids[i]]
        if taken[name] < allocation[name]:
            taken[name] += 1
            chosen.append(ids[i])
    return AuditSample(
        design=design,
        seed=seed,
        population_hash=hashed,
        population=len(drafts),
        strata=tuple(
            Stratum(name=name, population=sizes[name], size=allocation[name])
            for name in sorted(sizes)
        ),
        ids=tuple(chosen),
        stratum_of=tuple(strata[draft] for draft in chosen),
    )


def strata_by_verdict(predictions: ArrayLike, cut: float = 0.5) -> list[str]:
    """Each answer's stratum by the judge's verdict: FLAGGED at or above `cut` or where the judge
    failed (NaN), PASSED below it."""
    values = as_floats(predictions, "predictions")
    return [PASSED if value < cut else FLAGGED for value in values.tolist()]


def strata_by_escalation(escalated: Sequence[bool]) -> list[str]:
    """Each answer's stratum under selective judging: ESCALATED or DECIDED."""
    return [ESCALATED if up else DECIDED for up in escalated]


def inverse_inclusion(population: Mapping[str, int], labelled: Sequence[str]) -> Floats:
    """Each label's weight from its stratum (`labelled`, in order): the stratum's size in the
    population over its number of labels. A ValueError names a stratum with drafts and no
    label, or a label's stratum with no draft."""
    counts = Counter(labelled)
    for name, size in population.items():
        if size > 0 and counts[name] == 0:
            raise ValueError(f"stratum {name!r} has {size} drafts but no label")
    for name in counts:
        if population.get(name, 0) == 0:
            raise ValueError(f"a label is in stratum {name!r}, which has no draft")
    return np.array([population[name] / counts[name] for name in labelled], dtype=np.float64)
