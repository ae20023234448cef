"""Which judge to deploy, end to end: scripted judges with known error sets, prices given to
Inspect as a price file (`model_cost_config`) and latencies from replies that sleep a known
time (`tests/support/deploy_judges.py`: an async mockllm function awaiting `anyio.sleep`).

30 synthetic cases, 10 of them ungrounded (u0..u9) and 20 grounded (g0..g19):

| candidate | wrong | no verdict | balanced acc. | recall | $ per 1,000 | sleeps |
| v2 with small | u0, u1, g0-g5 | | 0.75 | 0.8 | 0.094 | 0.01 s |
| v3 with small | g0-g5 | | 0.85 | 1.0 | 0.094 | 0.01 s |
| v3 with medium | u3, g6 | g7, g8 | 0.922 | 0.9 | 0.94 | 0.1 s |
| v3 with large | | | 1.0 | 1.0 | 9.40 | 4.0 s |
| v3 panel of the three | | | 1.0 | 1.0 | 10.434 | 4.0 s (the slowest) |

Each is wrong where the others on v3 are right, so the panel's majority is right on every case;
v3 breaks no case v2 got right, so the gate passes.
"""

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from inspect_ai import eval as inspect_eval
from numpy.typing import NDArray

from farejudge.comparison.cli import EXIT_GATE, EXIT_OK, run
from farejudge.comparison.deploy.candidates import Deployment, DeployOptions
from farejudge.comparison.deploy.pick import Constraints
from farejudge.comparison.deploy.verdict import NOTHING_TO_CHOOSE, UNKNOWN_COST
from farejudge.comparison.logs.frame import Runs, load_runs
from farejudge.comparison.report.build import build_report
from farejudge.comparison.stats.bootstrap import Resampling, one_chunk_weights
from farejudge.comparison.stats.intervals import mcnemar_exact
from farejudge.core.decision_file import DECISION_FILE, Decision, Quality
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.synthetic_cases import write_cases
from tests.support.deploy_judges import (
    cost_per_call,
    grounded,
    price_file,
    register,
    run_judge,
    ungrounded,
    warm_up,
)

pytestmark = pytest.mark.slow

SMALL, MEDIUM, LARGE = (f"mockllm/deploy-{size}" for size in ("small", "medium", "large"))
PANEL = f"panel ({LARGE}, {MEDIUM}, {SMALL})"
PRICES = {SMALL: (0.1, 0.4), MEDIUM: (1.0, 4.0), LARGE: (10.0, 40.0)}
SLEEPS = {SMALL: 0.01, MEDIUM: 0.1, LARGE: 4.0}
PER_1K = {model: 1000 * cost_per_call(*prices) for model, prices in PRICES.items()}
WRONG = {
    ("v2", SMALL): [ungrounded(0), ungrounded(1), *(grounded(k) for k in range(6))],
    ("v3", SMALL): [grounded(k) for k in range(6)],
    ("v3", MEDIUM): [ungrounded(3), grounded(6)],
    ("v3", LARGE): [],
}
NO_VERDICT = {("v3", MEDIUM): [grounded(7), grounded(8)]}
LIMIT = 2.0
"""A p95 latency the slow judges' sleep alone exceeds, with a wide margin under it for the
others: a call's working time holds the event loop's other work too. Medium's p95 was 0.16 s
quiet and 0.26 s beside two CPU-bound processes (2026-12-03, 2 cores), but over 1 s once with
three pytest workers and their subprocesses on the 2 cores."""
RESAMPLES = 300
FAST = "mockllm/deploy-unpriced"


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> None:
    warm_up(tmp_path_factory.mktemp("warm-up"))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory, warm: None) -> Path:
    root = tmp_path_factory.mktemp("deploy")
    cases = root / "cases.jsonl"
    write_cases(cases, 30)
    register(list(PRICES))
    prices = price_file(root / "prices.yaml", PRICES)
    for (version, model), wrong in WRONG.items():
        script = dict.fromkeys(wrong, "wrong") | dict.fromkeys(
            NO_VERDICT.get((version, model), []), "failure"
        )
        run_judge(version, script, cases, root / "logs", model, SLEEPS[model], prices)
    return root / "logs"


@pytest.fixture(scope="module")
def runs(logs: Path) -> Runs:
    return load_runs([str(logs)])


def deployment(runs: Runs, quality: Quality = "balanced_accuracy", **bounds: Any) -> Deployment:
    options = DeployOptions(quality=quality, constraints=Constraints(**bounds))
    return build_report(runs, Resampling(RESAMPLES), deploy=options).deployment


def latencies(runs: Runs, version: str, models: tuple[str, ...]) -> NDArray[np.float64]:
    """Each call's working time as the logs hold it; a panel's call, its slowest member's."""
    samples = runs.samples
    mine = samples[(samples["version"] == version) & samples["model"].isin(models)]
    slowest: NDArray[np.float64] = (
        mine.groupby(["case", "epoch"])["working_time"].max().to_numpy(dtype=float)
    )
    return slowest


def named(d: Deployment, version: str, model: str) -> int:
    return next(i for i, c in enumerate(d.candidates) if (c.version, c.model) == (version, model))


def test_the_logs_carry_each_calls_cost_and_working_time(runs: Runs) -> None:
    samples = runs.samples
    for model, per_1k in PER_1K.items():
        mine = samples[samples["model"] == model]
        assert mine["cost"].to_numpy() == pytest.approx(per_1k / 1000)
        # The sleep, then the event loop's time on this and the other samples in flight, which
        # has no bound on a busy machine: only the sleep is certain.
        assert (mine["working_time"] >= SLEEPS[model]).all()
    medians = [samples[samples["model"] == m]["working_time"].median() for m in (SMALL, LARGE)]
    assert medians[0] < medians[1]


def test_each_candidates_figures_are_the_scripted_ones(runs: Runs) -> None:
    d = deployment(runs)
    expected = {
        ("v2", SMALL): (0.75, 0.8, 0.0, PER_1K[SMALL]),
        ("v3", LARGE): (1.0, 1.0, 0.0, PER_1K[LARGE]),
        ("v3", MEDIUM): ((0.9 + 17 / 18) / 2, 0.9, 2 / 30, PER_1K[MEDIUM]),
        ("v3", SMALL): (0.85, 1.0, 0.0, PER_1K[SMALL]),
        ("v3", PANEL): (1.0, 1.0, 0.0, sum(PER_1K.values())),
    }
    assert [(c.version, c.model) for c in d.candidates] == list(expected)
    for c in d.candidates:
        figures = tuple(
            c.estimate(f) for f in ("balanced_accuracy", "recall", "failure_rate", "cost_per_1k")
        )
        assert figures == pytest.approx(expected[(c.version, c.model)]), c.name
        slowest = max(SLEEPS[m] for m in c.members) if c.members else SLEEPS[c.model]
        assert slowest <= c.estimate("latency_p50") <= c.estimate("latency_p95")
        calls = latencies(runs, c.version, c.members or (c.model,))
        for q in (0.5, 0.95):
            assert c.estimate(f"latency_p{round(100 * q)}") == np.quantile(
                calls, q, method="inverted_cdf"
            ), c.name
        assert math.isnan(c.estimate("flip_rate")), "one epoch: nothing to flip"
    # v2 on small costs what v3 on small does, and is worse; the panel what large does, more.
    assert [c.on_frontier for c in d.candidates] == [False, True, True, True, False]


NOT_SIGNIFICANT_6_4 = mcnemar_exact(6, 4)

Run = tuple[str, str]
# Constraint set, quality → pick, runner-up, McNemar p, the one to prefer, why.
CONSTRAINT_SETS: list[tuple[dict[str, float], Quality, Run, Run, float, Run, str]] = [
    # The best balanced accuracy; the panel ties it, dearer, and differs on no case.
    ({}, "balanced_accuracy", ("v3", LARGE), ("v3", PANEL), 1.0, ("v3", LARGE), "cheaper"),
    # Large and the panel cost too much: medium is best, but not significantly better than
    # small, which is ten times cheaper.
    (
        {"max_cost_per_1k": 5.0},
        "balanced_accuracy",
        ("v3", MEDIUM),
        ("v3", SMALL),
        NOT_SIGNIFICANT_6_4,
        ("v3", SMALL),
        "cheaper",
    ),
    # Medium fails too often: small on v3 against small on v2, at the same price.
    (
        {"max_cost_per_1k": 5.0, "max_failure_rate": 0.05},
        "balanced_accuracy",
        ("v3", SMALL),
        ("v2", SMALL),
        mcnemar_exact(2, 0),
        ("v3", SMALL),
        "same cost",
    ),
    # Large and the panel are too slow, v2 on small misses too much.
    (
        {"max_p95_latency": LIMIT, "min_recall": 0.85},
        "balanced_accuracy",
        ("v3", MEDIUM),
        ("v3", SMALL),
        NOT_SIGNIFICANT_6_4,
        ("v3", SMALL),
        "cheaper",
    ),
    # Ranked on recall: small on v3 catches every ungrounded answer.
    (
        {"max_p95_latency": LIMIT},
        "recall",
        ("v3", SMALL),
        ("v3", MEDIUM),
        mcnemar_exact(4, 6),
        ("v3", SMALL),
        "cheaper",
    ),
]


@pytest.mark.parametrize(
    ("bounds", "quality", "pick", "runner_up", "p", "preferred", "why"), CONSTRAINT_SETS
)
def test_the_known_pick_under_each_constraint_set(
    runs: Runs,
    bounds: dict[str, float],
    quality: Quality,
    pick: Run,
    runner_up: Run,
    p: float,
    preferred: Run,
    why: str,
) -> None:
    d = deployment(runs, quality, **bounds)
    assert d.pick is not None and d.runner_up is not None and d.test is not None
    assert (d.pick.version, d.pick.model) == pick
    assert (d.runner_up.version, d.runner_up.model) == runner_up
    assert d.test.method == "exact McNemar"
    assert d.test.p_value == pytest.approx(p)
    assert not d.test.significant
    assert d.preferred is not None and (d.preferred.version, d.preferred.model) == preferred
    assert d.preference == why


def test_nothing_meeting_the_constraints_names_the_one_that_excluded_the_most(runs: Runs) -> None:
    d = deployment(runs, min_recall=0.95, max_cost_per_1k=0.05)
    assert d.pick is None and d.runner_up is None
    # Every candidate costs more than 0.05; two miss the recall.
    assert (d.excluded_most, d.excluded_count) == (["max_cost_per_1k"], 5)


def compare(logs: Path, out: Path, *options: str) -> int:
    return run([str(logs), "--out", str(out), "--quiet", "--resamples", str(RESAMPLES), *options])


def test_the_report_says_the_pick_is_not_significantly_better_and_prefers_the_cheaper(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert compare(logs, tmp_path, "--max-cost-per-1k", "5") == EXIT_OK
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    top = text.split("\n## ")[1]
    assert top.startswith("Which judge to deploy")
    assert (
        f"The pick is not significantly better than the runner-up at 0.05 (exact McNemar p = "
        f"{NOT_SIGNIFICANT_6_4:.3g} on 30 paired cases: 6 right only for the pick, 4 only for "
        f"the runner-up), so prefer the cheaper of the two, v3 with {SMALL} "
        f"($0.0940 against $0.9400 per 1,000 answers)." in top
    )
    assert f"| v3 with {LARGE} | — |" in top and "fails --max-cost-per-1k 5" in top
    assert f"deploy: pick v3 with {MEDIUM}; prefer v3 with {SMALL}" in capsys.readouterr().err
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<img alt="deploy plot"' in page.split("<h2>Which judge to deploy</h2>")[1][:8000]


def test_decision_json_matches_its_schema_and_the_report(logs: Path, tmp_path: Path) -> None:
    assert compare(logs, tmp_path, "--max-cost-per-1k", "5", "--max-failure-rate", "0.05") == 0
    written = json.loads((tmp_path / DECISION_FILE).read_text(encoding="utf-8"))
    jsonschema.validate(written, Decision.model_json_schema())
    assert written["pick"] == {"version": "v3", "model": SMALL}
    assert written["runner_up"] == {"version": "v2", "model": SMALL}
    assert written["prefer"] == written["pick"] and written["prefer_reason"] == "same cost"
    assert written["constraints"] == {
        "max_cost_per_1k": 5.0,
        "min_recall": None,
        "max_failure_rate": 0.05,
        "max_p95_latency": None,
    }
    assert written["quality"] == "balanced_accuracy" and written["reason"] is None
    assert written["test"]["method"] == "exact McNemar"
    assert written["test"]["p_value"] == pytest.approx(mcnemar_exact(2, 0))
    assert written["cost_known"] is True
    frontier = {(c["version"], c["model"]): c for c in written["frontier"]}
    assert frontier[("v3", MEDIUM)]["failed_constraints"] == ["--max-failure-rate"]
    assert frontier[("v3", LARGE)]["cost_per_1k"]["estimate"] == pytest.approx(PER_1K[LARGE])
    assert frontier[("v3", PANEL)]["members"] == [LARGE, MEDIUM, SMALL]
    assert 0 <= frontier[("v2", SMALL)]["frontier_share"] < 1
    # By hand, from the resamples' case weights (seed 0; cases in id order, syn-00000 first):
    # large is off the frontier where a cheaper candidate is perfect too, that is where no
    # case medium gets wrong (u3, g6) or no case small gets wrong (g0-g5) was drawn.
    weights = one_chunk_weights(30, Resampling(RESAMPLES, 0))
    column = {f"syn-{i:05d}": i for i in range(30)}

    def drawn(cases: list[str]) -> NDArray[np.bool_]:
        found: NDArray[np.bool_] = weights[:, [column[c] for c in cases]].sum(axis=1) > 0
        return found

    large = drawn(WRONG[("v3", MEDIUM)]) & drawn(WRONG[("v3", SMALL)])
    assert frontier[("v3", LARGE)]["frontier_share"] == pytest.approx(large.mean())
    assert written["usable_resamples"] == RESAMPLES


def test_require_pick_exits_1_when_nothing_meets_the_constraints_and_0_otherwise(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nothing = ["--min-recall", "0.95", "--max-cost-per-1k", "0.05"]
    assert compare(logs, tmp_path / "a", *nothing, "--require-pick") == EXIT_GATE
    err = capsys.readouterr().err
    assert (
        "deploy: no pick (--require-pick: exit 1): No candidate meets the constraints: "
        "--max-cost-per-1k 0.05 excluded the most (5 of 5 candidates)." in err
    )
    assert "gate: passed" in err
    decided = json.loads((tmp_path / "a" / DECISION_FILE).read_text(encoding="utf-8"))
    assert decided["pick"] is None and decided["prefer"] is None
    assert decided["reason"].startswith("No candidate meets the constraints")
    # Without --require-pick, no pick is news, not a failure.
    assert compare(logs, tmp_path / "b", *nothing) == EXIT_OK
    assert compare(logs, tmp_path / "c", "--max-cost-per-1k", "5", "--require-pick") == EXIT_OK


@pytest.fixture(scope="module")
def unpriced(tmp_path_factory: pytest.TempPathFactory, warm: None) -> Path:
    """Two judges of v3 with no price file: a slow one right everywhere, a fast one wrong on
    one grounded case."""
    root = tmp_path_factory.mktemp("unpriced")
    cases = root / "cases.jsonl"
    write_cases(cases, 12)
    run_judge("v3", {}, cases, root / "logs", "mockllm/deploy-unpriced-slow", SLEEPS[LARGE])
    run_judge("v3", {grounded(0): "wrong"}, cases, root / "logs", FAST, 0.01)
    return root / "logs"


def test_without_prices_cost_is_unknown_and_the_pick_is_made_on_the_rest(
    unpriced: Path, tmp_path: Path
) -> None:
    options = ["--max-cost-per-1k", "1", "--max-p95-latency", f"{LIMIT:g}"]
    assert compare(unpriced, tmp_path, *options, "--require-pick") == EXIT_OK
    top = (tmp_path / "report.md").read_text(encoding="utf-8").split("\n## ")[1]
    assert f"Deploy v3 with {FAST}:" in top
    assert (
        "Cost unknown for every candidate: no log records a cost (give judge-matrix "
        "--model-cost-config a price file); --max-cost-per-1k 1 could not be checked on them "
        "and excludes none of them." in top
    )
    assert f"| {UNKNOWN_COST} |" in top
    assert "meets (not checked: --max-cost-per-1k 1)" in top
    assert f"fails --max-p95-latency {LIMIT:g} (not checked: --max-cost-per-1k 1)" in top
    decided = Decision.model_validate_json((tmp_path / DECISION_FILE).read_text(encoding="utf-8"))
    assert decided.cost_known is False and decided.pick is not None
    assert decided.pick.model == FAST
    (fast,) = [c for c in decided.frontier if c.model == decided.pick.model]
    assert fast.cost_per_1k.estimate is None
    assert fast.unchecked_constraints == ["--max-cost-per-1k"]


def test_one_candidate_renders_and_says_there_is_nothing_to_choose_between(
    unpriced: Path, tmp_path: Path
) -> None:
    (one,) = [p for p in unpriced.glob("*.eval") if load_runs([str(p)]).models == [FAST]]
    assert compare(one, tmp_path) == EXIT_OK
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"Deploy v3 with {FAST}, the only candidate: {NOTHING_TO_CHOOSE}" in text
    assert "Which judge to deploy</h2>" in (tmp_path / "report.html").read_text(encoding="utf-8")


@pytest.mark.model
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
)
def test_the_embedded_judge_alone_is_one_candidate_with_nothing_to_choose_between(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    write_cases(cases, 2)
    (log,) = inspect_eval(
        judge_groundedness(prompt_version="v3", dataset=str(cases)),
        model="gguf/smollm2-135m",
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    out = tmp_path / "report"
    assert compare(tmp_path / "logs", out) in (EXIT_OK, EXIT_GATE)
    top = (out / "report.md").read_text(encoding="utf-8").split("\n## ")[1]
    assert f"Deploy v3 with gguf/smollm2-135m, the only candidate: {NOTHING_TO_CHOOSE}" in top
    assert "Cost unknown for every candidate" in top
    decided = Decision.model_validate_json((out / DECISION_FILE).read_text(encoding="utf-8"))
    (only,) = decided.frontier
    assert only.latency_p50.estimate is not None and only.latency_p50.estimate > 0
