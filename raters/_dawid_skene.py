"""Dawid-Skene on binary labels: what every annotator's labels say together.

Each annotator is a confusion matrix (its sensitivity, P(says ungrounded | ungrounded), and its
specificity, P(says grounded | grounded)); each item's true label is drawn with the prevalence;
EM finds the figures that make the labels most likely (Dawid and Skene 1979, Applied
Statistics 28(1)). The item's posterior P(ungrounded | its labels) is the soft label.

The EM is crowd-kit's `DawidSkene` (1.4.2) step for step, so its figures equal crowd-kit's on
the same labels: majority-vote shares as the first posterior, confusion counts clipped at
1e-10 before they are normalised, the prevalence clipped likewise, and the same stop (the
evidence lower bound per label rising by less than `tol`).
"""

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from farejudge.raters._labels import Floats, label_matrix

_EPS = 1e-10
"""crowd-kit's floor for a confusion count and the prevalence, before their logarithm."""


@dataclass(frozen=True)
class DawidSkene:
    """Dawid-Skene's estimates on one label matrix."""

    sensitivity: Floats
    """Each annotator's P(labels ungrounded | ungrounded)."""
    specificity: Floats
    """Each annotator's P(labels grounded | grounded)."""
    prevalence: float
    """P(ungrounded): the class prior."""
    posterior: Floats
    """Each item's P(ungrounded | its labels): the soft label."""
    iterations: int
    """EM steps taken after the majority-vote start."""
    converged: bool
    """Whether the evidence lower bound settled before the step limit."""


def _confusions(said: tuple[NDArray[np.bool_], NDArray[np.bool_]], posterior: Floats) -> Floats:
    """M-step: each annotator's P(label k | true class c) as [annotator, k, c], from the
    items it labelled k weighted by their posterior of each class. A label an annotator never
    gave stays 0 (crowd-kit has no row for it) and enters no likelihood."""
    classes = np.column_stack([1 - posterior, posterior])
    counts = np.stack([s.T.astype(float) @ classes for s in said], axis=1)
    given = np.stack([s.any(axis=0) for s in said], axis=1)[:, :, None]
    counts = np.where(given, np.maximum(counts, _EPS), 0.0)
    confusion: Floats = counts / counts.sum(axis=1, keepdims=True)
    return confusion


def _log_terms(confusion: Floats, log: np.ufunc) -> tuple[Floats, Floats]:
    """`log` of P(label 0 | c) and P(label 1 | c) per annotator, 0 where a label was never
    given (it is multiplied by no item)."""
    safe = np.where(confusion > 0, confusion, 1.0)
    logged: Floats = log(safe)
    return logged[:, 0, :], logged[:, 1, :]


def _posterior(
    said: tuple[NDArray[np.bool_], NDArray[np.bool_]], prevalence: float, confusion: Floats
) -> Floats:
    """E-step: each item's P(ungrounded | its labels)."""
    priors = np.maximum(np.array([1 - prevalence, prevalence]), _EPS)
    log0, log1 = _log_terms(confusion, np.log2)
    log_likelihood = np.log2(priors) + said[0] @ log0 + said[1] @ log1
    scaled = np.exp2(log_likelihood - log_likelihood.max(axis=1, keepdims=True))
    posterior: Floats = scaled[:, 1] / scaled.sum(axis=1)
    return posterior


def _evidence_lower_bound(
    said: tuple[NDArray[np.bool_], NDArray[np.bool_]],
    posterior: Floats,
    prevalence: float,
    confusion: Floats,
) -> float:
    """crowd-kit's stopping figure: the expected joint log-likelihood over the posterior, the
    prior's term counted once per label as crowd-kit counts it, plus the posterior's entropy."""
    classes = np.column_stack([1 - posterior, posterior])
    log_priors = np.log(np.maximum(np.array([1 - prevalence, prevalence]), _EPS))
    log0, log1 = _log_terms(confusion, np.log)
    labels_per_item = (said[0] | said[1]).sum(axis=1)
    joint = (classes * (said[0] @ log0 + said[1] @ log1)).sum()
    joint += labels_per_item @ classes @ log_priors
    clipped = np.maximum(classes, _EPS)
    return float(joint - (np.log(clipped) * clipped).sum())


def dawid_skene(labels: ArrayLike, iterations: int = 100, tol: float = 1e-5) -> DawidSkene:
    """Dawid-Skene's EM on a binary label matrix (items by annotators: 1 ungrounded,
    0 grounded, NaN not labelled), at most `iterations` steps.

    Raises ValueError where an item has no label (it carries nothing to estimate from: leave
    it out) or where every label is the same (no class to tell apart).
    """
    found = label_matrix(labels, binary=True)
    observed = ~np.isnan(found)
    unlabelled = np.flatnonzero(~observed.any(axis=1))
    if len(unlabelled):
        raise ValueError(f"item {unlabelled[0]} has no label")
    said = (observed & (found == 0), observed & (found == 1))
    if not said[0].any() or not said[1].any():
        raise ValueError("every label is the same: Dawid-Skene needs both labels")
    labels_given = int(observed.sum())
    posterior: Floats = said[1].sum(axis=1) / observed.sum(axis=1)
    prevalence = float(posterior.mean())
    confusion = _confusions(said, posterior)
    bound = -np.inf
    converged = False
    steps = 0
    while steps < iterations:
        steps += 1
        posterior = _posterior(said, prevalence, confusion)
        prevalence = float(posterior.mean())
        confusion = _confusions(said, posterior)
        new_bound = _evidence_lower_bound(said, posterior, prevalence, confusion) / labels_given
        if new_bound - bound < tol:
            converged = True
            break
        bound = new_bound
    return DawidSkene(
        sensitivity=confusion[:, 1, 1],
        specificity=confusion[:, 0, 0],
        prevalence=prevalence,
        posterior=posterior,
        iterations=steps,
        converged=converged,
    )
