"""The deploy decision's candidates and pick on hand-made runs: the test against the
runner-up, the preference, constraints, unknown costs, the flip rate, panels and graded
cut-offs, and what the section says of each."""

import math

import pytest

from farejudge.comparison.deploy.verdict import NOTHING_TO_CHOOSE
from farejudge.comparison.report.build import Report
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.intervals import mcnemar_exact
from farejudge.comparison.verdicts.gate import evaluate
from farejudge.shared.document import markdown
from tests.support.deploy_rows import case_rows, report_of
from tests.support.frame_rows import row


def deploy_text(report: Report) -> str:
    text = markdown.render(sections(report, evaluate(report.verdicts, report.runs, set())))
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
