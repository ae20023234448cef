"""Selective judging over hand-made runs: where each candidate's confidence comes from, which
candidates have none and why, what an answer costs, the cascades tried, and `--cascade`."""

import math

import numpy as np
import pytest

from farejudge.comparison.cases import per_case, report_order
from farejudge.comparison.escalation.results import (
    CascadeError,
    EscalationOptions,
    EscalationResults,
    escalation_results,
    parse_cascade,
)
from farejudge.comparison.logs.frame import Runs
from farejudge.comparison.panel.majority import build_panel
from farejudge.comparison.stats.bootstrap import Resampling
from tests.support.frame_rows import row, runs


def _results(
    frame: Runs, options: EscalationOptions, panel: list[str] | None = None
) -> EscalationResults:
    cases = report_order(per_case(frame.samples), frame.versions)
    panels = [build_panel(cases, "v3", panel, True, Resampling(20))] if panel else []
    return escalation_results(cases, frame.samples, panels, options)


def _rows() -> list[dict[str, object]]:
    """Four cases, x-0 and x-2 gold ungrounded:

    - `logprobs`, one epoch: P(ungrounded) 0.9, 0.2, 0.4 (its verdict ungrounded: 0.4 on it),
      and a judge failure; $0.002 a call.
    - `epochs`, three epochs: 3 of 3 ungrounded; 2 of 3 grounded; a failure and 2 ungrounded
      (2 of 3); 1 grounded, 1 ungrounded, 1 failure (no verdict); $0.01 a call.
    - `plain`, one epoch graded by epochs: its verdict alone.
    """
    rows = []
    for k, (judged, p, failed) in enumerate([(1, 0.9, 0), (0, 0.2, 0), (1, 0.4, 0), (0, 0, 1)]):
        rows.append(
            row(f"x-{k}", k % 2 == 0, judged, "v3", 1, failed, "logprobs",
                math.nan if failed else p, "none" if failed else "logprobs", 0.002)
        )  # fmt: skip
    epochs: list[list[int | None]] = [[1, 1, 1], [0, 0, 1], [None, 1, 1], [0, 1, None]]
    for k, said in enumerate(epochs):
        for e, said_then in enumerate(said, start=1):
            rows.append(
                row(f"x-{k}", k % 2 == 0, said_then or 0, "v3", e, said_then is None, "epochs",
                    math.nan if said_then is None else float(said_then), "epochs", 0.01)
            )  # fmt: skip
    rows += [
        row(f"x-{k}", k % 2 == 0, k % 2 == 0, "v3", model="plain", p_ungrounded=float(k % 2 == 0),
            graded_source="epochs")
        for k in range(4)
    ]  # fmt: skip
    return rows


def test_the_confidence_of_each_verdict_comes_from_its_graded_score() -> None:
    found = _results(runs(_rows()), EscalationOptions())
    by_model = {g.model: g for g in found.graded}
    logprobs, epochs = by_model["logprobs"], by_model["epochs"]
    assert logprobs.source == "logprobs"
    np.testing.assert_allclose(logprobs.verdict, [1, 0, 1, np.nan])
    np.testing.assert_allclose(logprobs.confidence, [0.9, 0.8, 0.4, np.nan])
    assert epochs.source == "agreement over 3 epochs"
    np.testing.assert_allclose(epochs.verdict, [1, 0, 1, np.nan])
    # A failed epoch agrees with nothing: 2 of 3, not 2 of 2.
    np.testing.assert_allclose(epochs.confidence, [1, 2 / 3, 2 / 3, np.nan])
    np.testing.assert_allclose(epochs.failure, [0, 0, 1 / 3, 1 / 3])
    # What judging one answer costs: every call on it.
    assert logprobs.cost_per_answer == pytest.approx(0.002)
    assert epochs.cost_per_answer == pytest.approx(0.03)
    assert found.ungraded == [
        "v3 with plain: one epoch without logprobs: its confidence is its verdict, 1.0 on every "
        "case"
    ]


def test_a_panels_confidence_is_its_vote_share() -> None:
    rows = [
        row(f"x-{k}", 1, judged, "v3", model=m)
        for m, said in {"a": [1, 1, 0], "b": [1, 0, 0], "c": [1, 1, 1]}.items()
        for k, judged in enumerate(said)
    ]
    found = _results(runs(rows), EscalationOptions(), panel=["a", "b", "c"])
    (panel,) = [g for g in found.graded if g.members]
    assert panel.source == "vote share of 3 judges"
    np.testing.assert_allclose(panel.verdict, [1, 1, 0])
    np.testing.assert_allclose(panel.confidence, [1, 2 / 3, 2 / 3])
    # Each member alone is ungraded (one epoch, graded off): no cascade of them by default.
    assert found.ungraded == [
        f"v3 with {m}: no graded score in its logs (graded=off, or a log from before graded scores)"
        for m in "abc"
    ]
    assert found.cascades == []


def test_the_default_cascades_are_chains_of_one_versions_runs_cheapest_first() -> None:
    rows = _rows() + [
        {**r, "model": "dear", "cost": 0.5} for r in _rows() if r["model"] == "logprobs"
    ]
    found = _results(runs(rows), EscalationOptions())
    assert [s.name for s in found.cascades] == [
        "v3 with logprobs → epochs → a person",
        "v3 with logprobs → dear → a person",
        "v3 with epochs → dear → a person",
        "v3 with logprobs → epochs → dear → a person",
    ]
    assert not found.notes


def test_with_costs_unknown_no_cascade_is_guessed_at() -> None:
    rows = [{**r, "cost": math.nan} for r in _rows()]
    found = _results(runs(rows), EscalationOptions())
    assert found.cascades == []
    assert found.notes == [
        "No cascade of v3: a cascade puts its judges in order of cost, and the logs record none "
        "(give judge-matrix --model-cost-config a price file, or name the cascades in order "
        "with --cascade)."
    ]
    named = EscalationOptions(cascades=(parse_cascade("v3/epochs,v3/logprobs"),))
    (cascade,) = _results(runs(rows), named).cascades
    assert cascade.name == "v3 with epochs → logprobs → a person" and cascade.named


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("v3/plain,v3/epochs", "--cascade v3/plain: v3 with plain has no graded score (one "
         "epoch without logprobs: its confidence is its verdict, 1.0 on every case), so no "
         "confidence to hold to a threshold"),
        ("v3/epochs,v2/logprobs", "--cascade v2/logprobs: no graded run or panel v2 with "
         "logprobs in these logs"),
        ("v3/epochs,v3/epochs", "--cascade v3/epochs,v3/epochs: a candidate is named twice"),
        ("v3/a,v3/b,v3/c,v3/d", "--cascade v3/a,v3/b,v3/c,v3/d: name two or three candidates, "
         "cheapest first"),
    ],
)  # fmt: skip
def test_a_cascade_that_cannot_be_made_is_one_line(text: str, line: str) -> None:
    with pytest.raises(CascadeError) as raised:
        _results(runs(_rows()), EscalationOptions(cascades=(parse_cascade(text),)))
    assert str(raised.value) == line


def test_a_cascade_is_over_the_cases_every_judge_judged_the_same() -> None:
    rows = [r for r in _rows() if not (r["model"] == "epochs" and r["case"] == "x-3")]
    rows = [
        {**r, "case_hash": "changed"} if r["model"] == "epochs" and r["case"] == "x-0" else r
        for r in rows
    ]
    options = EscalationOptions(cascades=(parse_cascade("v3/logprobs,v3/epochs"),))
    (cascade,) = _results(runs(rows), options).cascades
    assert cascade.cases.tolist() == ["x-1", "x-2"]
    # Each judge still has x-0 (with other content): x-1 and x-2 are second and third.
    assert [at.tolist() for at in cascade.index] == [[1, 2], [1, 2]]


def test_a_run_graded_off_has_no_confidence_whatever_its_epochs() -> None:
    rows = [
        {**r, "graded_source": "none", "p_ungrounded": math.nan}
        for r in _rows()
        if r["model"] == "epochs"
    ]
    found = _results(runs(rows), EscalationOptions())
    assert found.graded == [] and found.alone == []
    assert found.ungraded[0].startswith("v3 with epochs: no graded score in its logs")


@pytest.mark.parametrize(("epochs", "each"), [(2, "every epoch of every case"), (1, "every case")])
def test_a_run_whose_every_answer_failed_says_so_not_graded_off(epochs: int, each: str) -> None:
    # As `-T graded=epochs --epochs 2` logs a judge that never gave a verdict: no graded
    # score on any sample, because there was no verdict to grade.
    rows = [
        row(f"x-{k}", k % 2 == 0, 0, "v3", e, 1, "failing", math.nan, "none", 0.01)
        for k in range(4)
        for e in range(1, epochs + 1)
    ]
    found = _results(runs(rows), EscalationOptions(alpha=0.1, delta=0.1))
    assert found.graded == []
    assert found.ungraded == [f"v3 with failing: {each} a judge failure: no verdict to grade"]


def test_a_logprobs_run_without_a_reading_on_a_case_has_no_confidence_there() -> None:
    rows = [r for r in _rows() if r["model"] == "logprobs"]
    rows[1] = {**rows[1], "p_ungrounded": math.nan, "graded_source": "none"}
    (judge,) = _results(runs(rows), EscalationOptions()).graded
    np.testing.assert_allclose(judge.confidence, [0.9, np.nan, 0.4, np.nan])
