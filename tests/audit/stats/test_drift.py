"""The drift detector on simulated streams of weekly labels, and the rate alert.

52 weekly periods of 200 labels at an ungrounded rate of 0.2, 2,000 streams each: a judge
whose sensitivity falls from 0.95 to 0.75 at week 20, and one that keeps its figures (0.95 and
0.95, the references). Run with `-s` to see the rates.
"""

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from farejudge.audit.stats import drift
from farejudge.audit.stats.drift import (
    DROPS,
    HORIZON,
    detect_drift,
    log_shiryaev_roberts,
    log_threshold,
    rate_alert,
)
from farejudge.comparison.stats.intervals import Interval
from tests.support.paths import REPO_ROOT

STREAMS = 2_000
WEEKS = 52
LABELS = 200
RATE = 0.2
REFERENCE = 0.95
CHANGE = 19
"""Week 20, counted from 0: the first week of the drifted judge."""

Ints = NDArray[np.int64]


def _streams(
    seed: int, sensitivity_after: float, specificity_after: float = REFERENCE
) -> tuple[Ints, Ints, Ints, Ints]:
    """Each stream's weekly misses, positives, false alarms and negatives (streams x weeks)."""
    rng = np.random.default_rng(seed)
    positives = rng.binomial(LABELS, RATE, size=(STREAMS, WEEKS))
    negatives = LABELS - positives
    weeks = np.arange(WEEKS)
    sensitivity = np.where(weeks >= CHANGE, sensitivity_after, REFERENCE)
    specificity = np.where(weeks >= CHANGE, specificity_after, REFERENCE)
    misses = rng.binomial(positives, 1 - sensitivity)
    false_alarms = rng.binomial(negatives, 1 - specificity)
    return misses, positives, false_alarms, negatives


def _first_alarms(
    seed: int, sensitivity_after: float, specificity_after: float = REFERENCE
) -> Ints:
    """Each stream's first alarm week by either detector (WEEKS where none)."""
    misses, positives, false_alarms, negatives = _streams(
        seed, sensitivity_after, specificity_after
    )
    threshold = log_threshold(0.05, HORIZON)
    alarmed = (log_shiryaev_roberts(misses, positives, REFERENCE) >= threshold) | (
        log_shiryaev_roberts(false_alarms, negatives, REFERENCE) >= threshold
    )
    found: Ints = np.where(alarmed.any(axis=1), alarmed.argmax(axis=1), WEEKS)
    # The vectorised statistics are detect_drift's, stream by stream.
    for stream in range(20):
        report = detect_drift(
            misses[stream],
            positives[stream],
            false_alarms[stream],
            negatives[stream],
            REFERENCE,
            REFERENCE,
        )
        weeks = [
            w
            for w in (report.sensitivity.alarm_week, report.specificity.alarm_week)
            if w is not None
        ]
        assert min(weeks, default=WEEKS) == found[stream]
    return found


def test_a_sensitivity_drop_is_flagged_within_four_weeks() -> None:
    first = _first_alarms(1, sensitivity_after=0.75)
    early = float(np.mean(first < CHANGE))
    within = float(np.mean((first >= CHANGE) & (first < CHANGE + 4)))
    delay = first[first >= CHANGE] - CHANGE + 1
    print(
        f"\nsensitivity 0.95 -> 0.75 at week 20: flagged within 4 weeks in {within:.1%} of "
        f"{STREAMS} streams (weeks after the change: mean {delay.mean():.2f}, "
        f"{np.mean(delay == 1):.1%} in its first week); alarms before the change {early:.2%}"
    )
    assert within >= 0.80


def test_a_specificity_drop_is_flagged_too() -> None:
    first = _first_alarms(2, sensitivity_after=REFERENCE, specificity_after=0.85)
    within = float(np.mean((first >= CHANGE) & (first < CHANGE + 4)))
    print(f"\nspecificity 0.95 -> 0.85 at week 20: flagged within 4 weeks in {within:.1%}")
    assert within >= 0.80


def test_a_judge_that_keeps_its_figures_rarely_raises_an_alarm_in_52_looks() -> None:
    first = _first_alarms(3, sensitivity_after=REFERENCE)
    false_alarms = float(np.mean(first < WEEKS))
    print(
        f"\nno drift: a false alarm over 52 weekly looks in {false_alarms:.2%} of {STREAMS} "
        f"streams (threshold 2 x 52 / 0.05 = {math.exp(log_threshold()):.0f})"
    )
    assert false_alarms <= 0.05


def test_a_judge_better_than_its_references_raises_none() -> None:
    first = _first_alarms(4, sensitivity_after=0.99, specificity_after=0.99)
    alarms = float(np.mean(first < WEEKS))
    print(f"\nimproving to 0.99 and 0.99 at week 20: an alarm in {alarms:.2%} of streams")
    assert alarms <= 0.05


def _log_mixed_ratio_statistic(errors: Ints, trials: Ints) -> NDArray[np.float64]:
    """The alternative: one Shiryaev-Roberts statistic of each week's likelihood ratio mixed
    over the drops, R_t = (R_(t-1) + 1) x mean over d of L_t(d)."""
    null = 1 - REFERENCE
    q1 = (null + np.array(DROPS)).reshape(-1, 1, 1)
    log_ratio = errors * np.log(q1 / null) + (trials - errors) * np.log((1 - q1) / (1 - null))
    mixed = np.logaddexp.reduce(log_ratio, axis=0) - math.log(len(DROPS))
    log_r = np.full(errors.shape[0], -np.inf)
    found = np.empty(errors.shape)
    for week in range(errors.shape[1]):
        log_r = np.logaddexp(log_r, 0.0) + mixed[:, week]
        found[:, week] = log_r
    return found


@pytest.mark.parametrize(("seed", "after"), [(6, 0.90), (5, 0.85), (1, 0.75)])
def test_one_statistic_a_drop_detects_a_small_drop_sooner_than_one_of_mixed_ratios(
    seed: int, after: float
) -> None:
    # Why the detector averages one statistic a drop (docs/audit.md gives the same): on the
    # same streams, a statistic of mixed ratios spreads each week's evidence over every drop,
    # and a drop of 0.05 or 0.10 takes weeks longer to reach the threshold.
    misses, positives, _, _ = _streams(seed, sensitivity_after=after)
    threshold = log_threshold(0.05, HORIZON)
    delays = {}
    for name, statistic in (
        ("mean of each drop's statistic", log_shiryaev_roberts(misses, positives, REFERENCE)),
        ("statistic of mixed ratios", _log_mixed_ratio_statistic(misses, positives)),
    ):
        alarmed = statistic[:, CHANGE:] >= threshold
        # A stream with no alarm by week 52 counts as detected the week after.
        delays[name] = np.where(alarmed.any(axis=1), alarmed.argmax(axis=1) + 1, WEEKS - CHANGE + 1)
    chosen, mixed = (float(d.mean()) for d in delays.values())
    print(
        f"\nsensitivity 0.95 -> {after:.2f} at week 20, mean weeks to the alarm: {chosen:.2f} "
        f"(one statistic a drop), {mixed:.2f} (mixed ratios)"
    )
    assert chosen <= mixed + 0.05
    if after >= 0.85:
        assert chosen < mixed - 0.3


def test_the_docs_give_the_statistic_the_code_computes() -> None:
    # docs/audit.md's formula, as the module's docstring gives it, by hand.
    docs = (REPO_ROOT / "docs" / "audit.md").read_text(encoding="utf-8")
    block = docs.split("```text\nR_t(d)", 1)[1].split("```", 1)[0]
    formula = ("R_t(d)" + block).strip().splitlines()
    docstring = [" ".join(line.split()) for line in (drift.__doc__ or "").splitlines()]
    assert all(" ".join(line.split()) in docstring for line in formula), formula
    rng = np.random.default_rng(7)
    trials = rng.integers(0, 60, size=12)
    errors = rng.binomial(trials, 0.2)
    by_hand = []
    each = dict.fromkeys(DROPS, 0.0)
    for k, n in zip(errors, trials, strict=True):
        for drop in DROPS:
            null, alternative = 1 - REFERENCE, 1 - REFERENCE + drop
            ratio = (alternative / null) ** k * ((1 - alternative) / (1 - null)) ** (n - k)
            each[drop] = (each[drop] + 1) * ratio
        by_hand.append(math.log(sum(each.values()) / len(DROPS)))
    assert log_shiryaev_roberts(errors, trials, REFERENCE) == pytest.approx(by_hand, rel=1e-9)


def test_the_statistic_forgets_good_weeks() -> None:
    # The same drifted weeks after 19 good ones or after none: within a factor of the good
    # weeks' leftover evidence, not buried under them as a cumulative average would be.
    misses = np.array([1] * 19 + [10] * 3)
    positives = np.full(22, 40)
    after_good = log_shiryaev_roberts(misses, positives, REFERENCE)[-1]
    alone = log_shiryaev_roberts(misses[19:], positives[19:], REFERENCE)[-1]
    assert after_good == pytest.approx(alone, abs=0.5)


def test_past_the_horizon_the_detector_refuses() -> None:
    weeks = np.zeros(HORIZON + 1, dtype=int)
    with pytest.raises(ValueError, match="past the horizon of 52"):
        detect_drift(weeks, weeks + 40, weeks, weeks + 160, REFERENCE, REFERENCE)


def test_no_week_yet_gives_no_alarm() -> None:
    empty = np.zeros(0, dtype=int)
    report = detect_drift(empty, empty, empty, empty, REFERENCE, REFERENCE)
    assert not report.alarm and report.sensitivity.log_statistic == ()


def test_a_week_without_positives_carries_no_evidence() -> None:
    statistic = log_shiryaev_roberts([0, 0], [0, 0], REFERENCE)
    # R_1 = L_1 = 1, R_2 = (1 + 1) x 1.
    assert statistic == pytest.approx([0.0, math.log(2)])


@pytest.mark.parametrize(
    ("errors", "trials", "reference", "message"),
    [
        ([3], [2], 0.9, "between 0 and the week's trials"),
        ([1, 2], [3], 0.9, "shape"),
        ([1], [3], 1.0, "strictly between 0 and 1"),
        ([1], [3], 0.02, "no drop"),
    ],
)
def test_bad_counts_are_named(
    errors: list[int], trials: list[int], reference: float, message: str
) -> None:
    drops = (0.05,) if reference == 0.02 else (0.05, 0.1)
    with pytest.raises(ValueError, match=message):
        log_shiryaev_roberts(errors, trials, reference, drops)


def test_the_rate_alert_needs_the_whole_interval_above_the_threshold() -> None:
    assert rate_alert(Interval(0.25, 0.21, 0.29), 0.2)
    assert not rate_alert(Interval(0.25, 0.19, 0.31), 0.2)
    assert not rate_alert(Interval(0.25, 0.20, 0.31), 0.2)
