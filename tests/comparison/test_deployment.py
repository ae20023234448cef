"""Which judge to deploy, on hand-made figures: the frontier and its shares worked out by
hand, the pick and its test, unknown costs, one candidate, the decision file's schema."""

import json
import math
from collections.abc import Sequence

import jsonschema
import numpy as np
import pytest

from farejudge.comparison.candidates import Deployment, DeployOptions
from farejudge.comparison.cli import EXIT_INPUT, run
from farejudge.comparison.figures import Report, build_report
from farejudge.comparison.gate import evaluate
from farejudge.comparison.report import markdown
from farejudge.comparison.report.decision import Decision, decision
from farejudge.comparison.report.deploy_sections import NOTHING_TO_CHOOSE, deploy_sections
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.deployment import (
    CandidateRows,
    Constraints,
    Quality,
    on_frontier,
    resample_candidates,
    weighted_quantiles,
)
from farejudge.comparison.stats.intervals import mcnemar_exact, one_chunk_weights
from tests.support.frame_rows import row, runs

# --- the frontier and its shares, by hand -------------------------------------------------


def test_the_frontier_keeps_what_nothing_beats_on_both_cost_and_quality() -> None:
    cost = np.array([1.0, 2.0, 2.0, 3.0, 0.5])
    quality = np.array([0.8, 0.9, 0.7, 0.9, 0.6])
    # 2.0/0.7 is beaten by 1.0/0.8; 3.0/0.9 by 2.0/0.9 (as good, cheaper).
    assert on_frontier(cost, quality)[0].tolist() == [True, True, False, False, True]


def test_an_unknown_cost_is_placed_on_quality_alone_and_a_tie_keeps_both() -> None:
    cost = np.array([np.nan, 1.0, 1.0])
    quality = np.array([0.8, 0.8, 0.7])
    # The unpriced one and the priced one tie on quality: neither beats the other.
    assert on_frontier(cost, quality)[0].tolist() == [True, True, False]
    assert on_frontier(np.array([1.0, 2.0]), np.array([np.nan, 0.5]))[0].tolist() == [False, True]


# Cases u0, u1 (gold ungrounded), g0, g1 (gold grounded). X is right on all of them at $2 a
# call, Y misses u0 at $1, Z flags g0 at $0.50.
GOLD = np.array([1.0, 1.0, 0.0, 0.0])
FLAGGED = {"X": [1, 1, 0, 0], "Y": [0, 1, 0, 0], "Z": [1, 1, 1, 0]}
PRICE = {"X": 2.0, "Y": 1.0, "Z": 0.5}


def hand_rows(name: str, cases: Sequence[int] = (0, 1, 2, 3)) -> CandidateRows:
    flagged = np.array(FLAGGED[name], dtype=float)[list(cases)]
    gold = GOLD[list(cases)]
    n = len(cases)
    return CandidateRows(
        cases=np.array(cases, dtype=np.int64),
        cells=np.column_stack(
            [gold * flagged, gold * (1 - flagged), (1 - gold) * flagged, (1 - gold) * (1 - flagged)]
        ),
        failure=np.zeros(n),
        cost=np.full(n, PRICE[name] / 1000),
        flip=np.full(n, np.nan),
        call_rows=np.arange(n, dtype=np.int64),
        latency=np.full(n, 0.1),
    )


# Five resamples of the four cases, as counts of each case drawn.
WEIGHTS = np.array(
    [
        [1, 1, 1, 1],  # X 1.00 at $2, Y 0.75 at $1, Z 0.75 at $0.5: X and Z (Z beats Y)
        [0, 2, 1, 1],  # u0 not drawn: Y perfect at $1 beats X; Z 0.75 at $0.5: Y and Z
        [2, 1, 0, 1],  # g0 not drawn: Z perfect at $0.5 beats both: Z
        [1, 1, 2, 0],  # X 1.00, Y 0.75, Z 0.50 (both grounded draws flagged): all three
        [2, 2, 0, 0],  # no grounded case: balanced accuracy undefined, the resample unused
    ],
    dtype=float,
)


def test_frontier_shares_equal_the_hand_count_over_enumerated_resamples() -> None:
    found = resample_candidates(
        [hand_rows(n) for n in "XYZ"], 4, "balanced_accuracy", 5, 0, weights=WEIGHTS
    )
    assert found.usable == 4
    assert found.frontier_share == [2 / 4, 2 / 4, 4 / 4]
    assert found.on_frontier == [True, False, True], "at the point estimates, the first row"
    assert [p["balanced_accuracy"] for p in found.point] == [1.0, 0.75, 0.75]
    assert [p["cost_per_1k"] for p in found.point] == pytest.approx([2.0, 1.0, 0.5])


def _by_hand(weights: np.ndarray) -> list[float]:
    """Frontier shares with plain loops: per resample each candidate's balanced accuracy, and
    whether another is at least as good and as cheap, and better on one."""
    on = {name: 0 for name in "XYZ"}
    usable = 0
    for w in weights:
        quality = {}
        for name, flagged in FLAGGED.items():
            tp = sum(wi * g * f for wi, g, f in zip(w, GOLD, flagged, strict=True))
            pos = sum(wi * g for wi, g in zip(w, GOLD, strict=True))
            tn = sum(wi * (1 - g) * (1 - f) for wi, g, f in zip(w, GOLD, flagged, strict=True))
            neg = sum(wi * (1 - g) for wi, g in zip(w, GOLD, strict=True))
            quality[name] = (tp / pos + tn / neg) / 2 if pos and neg else math.nan
        if any(math.isnan(q) for q in quality.values()):
            continue
        usable += 1
        for b in "XYZ":
            beaten = any(
                quality[a] >= quality[b]
                and PRICE[a] <= PRICE[b]
                and (quality[a] > quality[b] or PRICE[a] < PRICE[b])
                for a in "XYZ"
            )
            on[b] += not beaten
    return [on[name] / usable for name in "XYZ"]


def test_seeded_frontier_shares_equal_a_hand_count_over_the_same_resamples() -> None:
    found = resample_candidates([hand_rows(n) for n in "XYZ"], 4, "balanced_accuracy", 400, 7)
    # The resamples a seed gives are the case weights `one_chunk_weights` draws.
    assert found.frontier_share == pytest.approx(_by_hand(one_chunk_weights(4, 400, 7)))
    assert 0 < found.frontier_share[1] < found.frontier_share[0] < found.frontier_share[2] == 1


def test_candidates_on_different_cases_are_drawn_together_on_the_ones_they_share() -> None:
    # Y judged only u1 and g0 (cases 1 and 2): each resample weighs them as for X and Z.
    found = resample_candidates(
        [hand_rows("X"), hand_rows("Y", (1, 2)), hand_rows("Z")],
        4,
        "balanced_accuracy",
        4,
        0,
        weights=WEIGHTS[:4],
    )
    # Y is right on both its cases: perfect wherever it drew one of each, at $1.
    assert found.point[1]["balanced_accuracy"] == 1.0
    # Row 3 (g0 not drawn) leaves Y no grounded case: undefined, so that row is not used.
    assert found.usable == 3


def test_latency_quantiles_are_numpys_inverted_cdf_and_weights_repeat_calls() -> None:
    values = np.random.default_rng(3).exponential(0.4, 37)
    found = weighted_quantiles(np.ones((1, 37)), values, (0.5, 0.95))
    for q in (0.5, 0.95):
        assert found[q][0] == np.quantile(values, q, method="inverted_cdf")
    weights = np.random.default_rng(4).integers(0, 4, (1, 37)).astype(float)
    repeated = np.repeat(values, weights[0].astype(int))
    assert weighted_quantiles(weights, values, (0.95,))[0.95][0] == np.quantile(
        repeated, 0.95, method="inverted_cdf"
    )
    assert math.isnan(weighted_quantiles(np.ones((1, 2)), np.array([0.1, np.nan]), (0.5,))[0.5][0])


# --- the pick, from hand-made runs ----------------------------------------------------------


def case_rows(
    model: str,
    wrong: set[int],
    cost: float = math.nan,
    seconds: float = math.nan,
    n: int = 20,
    failed: frozenset[int] = frozenset(),
) -> list[dict[str, object]]:
    """Cases x-0..x-(n-1), the even ones gold ungrounded; the judge wrong on `wrong`."""
    return [
        row(
            f"x-{k}",
            k % 2 == 0,
            (k % 2 == 0) != (k in wrong),
            version="v3",
            model=model,
            failure=int(k in failed),
            cost=cost,
            working_time=seconds + k / 1000,
        )
        for k in range(n)
    ]


def report_of(
    rows: list[dict[str, object]], quality: Quality = "balanced_accuracy", **bounds: float
) -> Report:
    options = DeployOptions(quality=quality, constraints=Constraints(**bounds))
    return build_report(runs(rows), resamples=200, deploy=options)


def deploy_text(report: Report) -> str:
    text = markdown.render(sections(report, evaluate(report, set())))
    return text.split("\n## ")[1]


def test_a_pick_not_significantly_better_is_said_so_and_the_cheaper_preferred() -> None:
    # a misses two cases b gets right: not significant on 20 cases, and b costs a tenth.
    report = report_of(case_rows("a", set(), 0.01) + case_rows("b", {0, 2}, 0.001))
    d = report.deployment
    assert d.pick is not None and d.pick.model == "a"
    assert d.runner_up is not None and d.runner_up.model == "b"
    assert d.test is not None and d.test.p_value == mcnemar_exact(2, 0) == 0.5
    assert not d.test.significant
    assert d.preferred is d.runner_up and d.preference == "cheaper"
    assert (
        "The pick is not significantly better than the runner-up at 0.05 (exact McNemar "
        "p = 0.5 on 20 paired cases: 2 right only for the pick, 0 only for the runner-up), so "
        "prefer the cheaper of the two, v3 with b ($1.0000 against $10.0000 per 1,000 "
        "answers)." in deploy_text(report)
    )


def test_a_pick_significantly_better_is_kept_even_if_dearer() -> None:
    report = report_of(case_rows("a", set(), 0.01) + case_rows("b", set(range(8)), 0.001))
    d = report.deployment
    assert d.test is not None and d.test.p_value == mcnemar_exact(8, 0) < 0.05
    assert d.test.significant and d.preferred is d.pick and d.preference == "significant"
    assert (
        "The pick is significantly better than the runner-up at 0.05 (exact McNemar "
        f"p = {mcnemar_exact(8, 0):.3g} on 20 paired cases: 8 right only for the pick, 0 only "
        "for the runner-up)." in deploy_text(report)
    )


def test_constraints_exclude_and_the_runner_up_follows() -> None:
    rows = case_rows("fast", {0, 2, 4}, 0.001, 0.2)
    rows += case_rows("slow", set(), 0.001, 1.5)
    rows += case_rows("flaky", {1}, 0.001, 0.2, failed=frozenset({3, 5}))
    d = report_of(rows, max_p95_latency=1.0).deployment
    assert d.pick is not None and d.pick.model == "flaky"
    d = report_of(rows, max_p95_latency=1.0, max_failure_rate=0.05).deployment
    assert d.pick is not None and d.pick.model == "fast" and d.runner_up is None
    assert d.test is None
    report = report_of(rows, max_p95_latency=1.0, max_failure_rate=0.05, min_recall=0.9)
    d = report.deployment
    assert d.pick is None
    # Recall excluded fast, failures flaky, latency slow and the panel of the three, which
    # waits for slow.
    assert [c.screened.failed for c in d.candidates] == [
        ["min_recall"],
        ["max_failure_rate"],
        ["max_p95_latency"],
        ["max_p95_latency"],
    ]
    assert (d.excluded_most, d.excluded_count) == (["max_p95_latency"], 2)
    assert (
        "No candidate meets the constraints: --max-p95-latency 1 excluded the most (2 of 4 "
        "candidates)." in deploy_text(report)
    )


def test_constraints_tied_for_excluding_the_most_are_all_named() -> None:
    rows = case_rows("fast", {0, 2, 4}, 0.001, 0.2) + case_rows("slow", set(), 0.001, 1.5)
    report = report_of(rows, max_p95_latency=1.0, min_recall=0.9)
    d = report.deployment
    assert (d.excluded_most, d.excluded_count) == (["min_recall", "max_p95_latency"], 1)
    assert (
        "--min-recall 0.9 and --max-p95-latency 1 excluded the most (1 of 2 candidates)."
        in deploy_text(report)
    )


def test_quality_recall_ranks_on_recall() -> None:
    # a flags every grounded case of four as well: recall 1, balanced accuracy lower.
    rows = case_rows("a", {1, 3, 5, 7}, 0.001) + case_rows("b", {0}, 0.001)
    picks = [
        report_of(rows, quality).deployment.pick for quality in ("balanced_accuracy", "recall")
    ]
    assert [p.model if p else None for p in picks] == ["b", "a"]


def test_without_costs_cost_is_unknown_and_the_pick_is_on_the_rest() -> None:
    rows = case_rows("a", set(), seconds=2.0) + case_rows("b", {0}, seconds=0.1)
    report = report_of(rows, max_cost_per_1k=1.0, max_p95_latency=1.0)
    d = report.deployment
    assert d.pick is not None and d.pick.model == "b"
    assert d.pick.screened.unchecked == ["max_cost_per_1k"]
    text = deploy_text(report)
    assert "Cost unknown for every candidate: no log records a cost" in text
    assert "--max-cost-per-1k 1 could not be checked on them and excludes none of them" in text
    assert "fails --max-p95-latency 1 (not checked: --max-cost-per-1k 1)" in text


def test_one_unpriced_candidate_among_priced_ones_is_named() -> None:
    rows = case_rows("a", set(), 0.002) + case_rows("b", {0}, math.nan)
    text = deploy_text(report_of(rows))
    assert "Cost unknown for v3 with b: their logs record no cost" in text


def test_with_costs_unknown_and_no_significant_difference_the_faster_is_preferred() -> None:
    d = report_of(case_rows("a", set(), seconds=2.0) + case_rows("b", {0}, seconds=0.1)).deployment
    assert d.preferred is d.runner_up and d.preference == "faster"


def test_one_candidate_has_nothing_to_choose_between() -> None:
    report = report_of(case_rows("only", {0}))
    assert report.deployment.pick is not None and report.deployment.runner_up is None
    assert (
        f"Deploy v3 with only, the only candidate: {NOTHING_TO_CHOOSE} (balanced accuracy "
        in deploy_text(report)
    )


def test_the_flip_rate_is_the_share_of_cases_whose_verdict_changed_between_epochs() -> None:
    rows = [
        row(f"x-{k}", k % 2, k % 2 if (k, e) != (0, 2) else 1, version="v3", epoch=e)
        for k in range(4)
        for e in (1, 2)
    ]
    (c,) = report_of(rows).deployment.candidates
    assert c.figures["flip_rate"].estimate == 1 / 4


def test_a_panel_costs_its_members_together_and_waits_for_the_slowest() -> None:
    rows = [
        r
        for i, m in enumerate("abc")
        for r in case_rows(m, {i}, cost=0.001 * (i + 1), seconds=0.1 * (i + 1), n=6)
    ]
    d = report_of(rows).deployment
    panel = d.candidates[-1]
    assert panel.members == ("a", "b", "c")
    assert panel.estimate("cost_per_1k") == pytest.approx(6.0)
    # The slowest member, c, takes 0.3 s and a millisecond per case index.
    assert panel.estimate("latency_p50") == pytest.approx(0.3 + 2 / 1000)
    assert panel.estimate("balanced_accuracy") == 1.0


def test_a_graded_cut_off_is_the_operating_point_and_delong_the_test() -> None:
    # Scores from logprobs: a ranks every ungrounded case first, b puts one grounded case
    # above them all; both are cut off where they flag nine of the ten ungrounded cases.
    def graded(model: str, scores: list[float]) -> list[dict[str, object]]:
        return [
            row(
                f"x-{k}",
                k % 2 == 0,
                score >= 0.5,
                version="v3",
                model=model,
                p_ungrounded=score,
                graded_source="logprobs",
                cost=0.001,
            )
            for k, score in enumerate(scores)
        ]

    a = [0.9 - 0.01 * k if k % 2 == 0 else 0.3 - 0.01 * k for k in range(20)]
    b = [*a[:1], 0.95, *a[2:]]
    d = report_of(graded("a", a) + graded("b", b)).deployment
    # The ninth highest ungrounded score flags nine of the ten.
    assert [c.threshold for c in d.candidates] == pytest.approx([a[16]] * 2)
    assert [c.estimate("recall") for c in d.candidates] == pytest.approx([0.9, 0.9])
    assert d.pick is not None and d.pick.model == "a"
    assert d.test is not None and d.test.method == "DeLong" and d.test.graded_cases == 20
    # b's one misplaced grounded case is also flagged at b's cut-off: one false positive.
    assert d.candidates[1].estimate("precision") == pytest.approx(9 / 10)
    delong = d.test.delong
    assert delong is not None and (delong.auc_after, delong.auc_before) == pytest.approx((1, 0.9))


def test_graded_scores_from_epochs_get_delong_beside_the_verdicts_mcnemar() -> None:
    # Two epochs each: a case's graded score is the share of its epochs saying ungrounded,
    # so the verdict (one call) is the operating point, and McNemar decides.
    def epochs(model: str, wrong: dict[int, int]) -> list[dict[str, object]]:
        return [
            row(
                f"x-{k}",
                k % 2 == 0,
                (k % 2 == 0) != (e <= wrong.get(k, 0)),
                version="v3",
                model=model,
                epoch=e,
                p_ungrounded=float((k % 2 == 0) != (e <= wrong.get(k, 0))),
                graded_source="epochs",
            )
            for k in range(12)
            for e in (1, 2)
        ]

    # a is wrong once on case 0; b twice on cases 0 and 2, and once on case 4.
    report = report_of(epochs("a", {0: 1}) + epochs("b", {0: 2, 2: 2, 4: 1}))
    d = report.deployment
    assert [c.threshold for c in d.candidates] == [None, None]
    assert d.test is not None and d.test.method == "exact McNemar"
    assert d.test.delong is not None and d.test.graded_cases == 12
    assert d.test.p_value == d.test.mcnemar_p == mcnemar_exact(2, 0)
    assert "; on the graded scores, DeLong p = " in deploy_text(report)


def test_decision_matches_its_schema_with_undefined_figures_as_null() -> None:
    report = report_of(case_rows("a", set(), seconds=0.2) + case_rows("b", {0, 2}, 0.001, 0.1))
    written = json.loads(decision(report.deployment).model_dump_json())
    jsonschema.validate(written, Decision.model_json_schema())
    a = next(c for c in written["frontier"] if c["model"] == "a")
    assert a["cost_per_1k"] == {"estimate": None, "low": None, "high": None}
    assert a["flip_rate"]["estimate"] is None
    assert written["cost_known"] is False
    assert written["summary"][0].startswith("Deploy v3 with a")


def test_with_no_case_scored_there_is_no_candidate_and_no_pick() -> None:
    empty = Deployment(
        quality="balanced_accuracy",
        constraints=Constraints(),
        target_recall=0.9,
        candidates=[],
        ranked=[],
        test=None,
        prefer_runner_up=False,
        preference=None,
        excluded_most=[],
        excluded_count=0,
        usable=0,
        resamples=200,
        seed=0,
    )
    (section,) = deploy_sections(empty)
    assert section.lines[0] == "No candidate: no run has a scored case."
    assert section.tables == []
    assert decision(empty).pick is None


@pytest.mark.parametrize(
    ("option", "says"),
    [
        (["--min-recall", "1.5"], "--min-recall 1.5: must be in [0, 1]"),
        (["--max-failure-rate", "-0.1"], "--max-failure-rate -0.1: must be in [0, 1]"),
        (["--max-cost-per-1k", "-2"], "--max-cost-per-1k -2: must be 0 or more"),
        (["--max-p95-latency", "nan"], "--max-p95-latency nan: must be 0 or more"),
    ],
)
def test_a_bad_constraint_is_one_line_exit_2(
    option: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["no-such-logs", *option]) == EXIT_INPUT
    assert capsys.readouterr().err == f"judge-compare: error: {says}\n"
