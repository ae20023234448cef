"""judge-compare at scale: streamed log reading, chunked bootstrap, the detectable change
computed in time linear in the pairs, and long lists cut short with every row kept."""

import io
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from scipy.stats import binom

from farejudge.comparison.figures import build_report
from farejudge.comparison.gate import evaluate
from farejudge.comparison.logs.frame import load_runs
from farejudge.comparison.logs.json_stream import JsonStreamError, array_items, member_items
from farejudge.comparison.report import markdown
from farejudge.comparison.report.document import Section, Table
from farejudge.comparison.report.long_lists import (
    LISTING_FILE,
    MARKDOWN_ROWS,
    records,
    write_listing,
)
from farejudge.comparison.report.sections import sections
from farejudge.comparison.stats.intervals import (
    _critical,
    bootstrap,
    mcnemar_detectable_change,
    resampled_totals,
)
from farejudge.testing.synthetic_logs import write_log, write_runs
from tests.support.frame_rows import row, runs

# --- the bootstrap ---------------------------------------------------------------------


def _all_at_once(rows: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """The totals as drawn before chunking: one (resamples x n) weight matrix."""
    n = len(rows)
    draws = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    offsets = (draws + n * np.arange(resamples)[:, None]).ravel()
    weights = np.bincount(offsets, minlength=resamples * n).reshape(resamples, n)
    return np.asarray(weights @ rows, dtype=float)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1000, None])
def test_resampled_totals_do_not_depend_on_the_chunk_size(chunk: int | None) -> None:
    rows = np.random.default_rng(5).random((53, 3))
    found = resampled_totals(rows, 300, seed=11, chunk=chunk)
    assert found.shape == (300, 3)
    np.testing.assert_allclose(found, _all_at_once(rows, 300, 11), rtol=1e-12)


def test_the_bootstrap_is_the_one_over_all_resamples_at_once() -> None:
    rows = np.column_stack([np.r_[np.ones(30), np.zeros(70)], np.ones(100)])
    values = [t[0] / t[1] for t in _all_at_once(rows, 400, 3)]
    low, high = np.percentile(values, [2.5, 97.5])
    found = bootstrap(rows, lambda t: float(t[0] / t[1]), 400, seed=3)
    assert (found.low, found.high) == pytest.approx((low, high), rel=1e-12)


# --- McNemar's detectable change -------------------------------------------------------

# (pairs, discordance, change) from the implementation before issue 19, which summed the
# power one count of discordant pairs at a time with scalar binomial calls.
RECORDED = [
    (1, 1.0, math.nan),
    (5, 0.4, math.nan),
    (10, 0.3, math.nan),
    (20, 1.0, 0.6),
    (20, 0.25, math.nan),
    (30, 0.1, math.nan),
    (50, 0.2, 0.18000000000000002),
    (144, 0.05, math.nan),
    (144, 0.1, 0.07500000000000001),
    (144, 0.3, 0.135),
    (200, 0.5, 0.14500000000000002),
    (500, 0.04, 0.030000000000000002),
    (500, 0.15, 0.049999999999999996),
    (1000, 0.02, 0.015),
    (1000, 0.1, 0.030000000000000002),
    (2000, 0.05, 0.015),
]


@pytest.mark.parametrize(("pairs", "discordance", "change"), RECORDED)
def test_detectable_change_equals_the_recorded_exact_values(
    pairs: int, discordance: float, change: float
) -> None:
    found = mcnemar_detectable_change(pairs, discordance)
    assert found == change or (math.isnan(found) and math.isnan(change))


def test_critical_counts_match_the_definition() -> None:
    counts = np.arange(0, 400)
    found = _critical(counts, 0.05)
    for d, c in zip(counts, found, strict=True):
        below = 2 * binom.cdf(np.arange(d + 1), d, 0.5) <= 0.05
        expected = int(np.nonzero(below)[0][-1]) if d and below.any() else -1
        assert c == expected, d


def test_detectable_change_shrinks_with_more_pairs_and_stays_defined() -> None:
    changes = [mcnemar_detectable_change(n, 0.1) for n in (1_000, 10_000, 100_000)]
    assert changes[0] > changes[1] >= changes[2] > 0


# --- long lists ------------------------------------------------------------------------


def test_a_long_table_shows_its_first_rows_and_the_file_keeps_all(tmp_path: Path) -> None:
    rows = [[f"c-{i}", "x"] for i in range(57)]
    parts = [
        Section(
            title="T",
            key="t",
            bullets=[f"b{i}" for i in range(25)],
            listing="lines",
            tables=[Table(["Case", "Why"], rows, listing="cases"), Table(["A"], [["1"]] * 30)],
        )
    ]
    text = markdown.render(parts)
    assert text.count("| c-") == MARKDOWN_ROWS
    assert f"… and 37 more: see {LISTING_FILE}" in text
    assert text.count("- b") == MARKDOWN_ROWS and "… and 5 more" in text
    # A table that is not a listing is shown whole.
    assert text.count("| 1 |") == 30
    path = tmp_path / LISTING_FILE
    with path.open("w", encoding="utf-8") as out:
        write_listing(parts, out)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [r["Case"] for r in lines if r["list"] == "cases"] == [r[0] for r in rows]
    assert len([r for r in lines if r["list"] == "lines"]) == 25


def test_many_flips_are_cut_short_in_the_report_and_listed_in_full() -> None:
    # 45 cases wrong on v1 and right on v2 (fixed), 30 the other way round (broken).
    v1 = [row(f"f-{i}", 1, 0) for i in range(45)] + [row(f"b-{i}", 1, 1) for i in range(30)]
    v2 = [row(f"f-{i}", 1, 1, "v2") for i in range(45)]
    v2 += [row(f"b-{i}", 1, 0, "v2") for i in range(30)]
    report = build_report(runs(v1 + v2), resamples=50, seed=0)
    parts = sections(report, evaluate(report, set()))
    flips = markdown.render(parts).split("## Fixed and broken cases")[1].split("\n## ")[0]
    assert flips.count("| f-") + flips.count("| b-") == MARKDOWN_ROWS
    assert "… and 55 more" in flips
    listed = [r for r in records(parts) if r["list"].startswith("flips")]
    assert len(listed) == 75
    assert {r["Change"] for r in listed} == {"fixed", "broken"}


# --- streaming JSON --------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 1 << 20])
def test_array_items_at_any_chunk_size(chunk: int) -> None:
    items = [{"a": 1.5, "b": [1, {"c": "x ] , {"}], "n": None}, 12345, "é", [], {}]
    data = json.dumps(items).encode() + b"  \n"
    assert list(array_items(io.BytesIO(data), chunk=chunk)) == items


def test_array_items_read_nan_as_inspect_writes_it() -> None:
    (item,) = array_items(io.BytesIO(b'[{"v": NaN}]'), chunk=2)
    assert math.isnan(item["v"])


@pytest.mark.parametrize("chunk", [1, 5, 1 << 20])
def test_member_items_skip_the_other_members(chunk: int) -> None:
    log = {"eval": {"x": [1, 2]}, "samples": [{"id": 1}, {"id": 2}], "after": {"y": "}"}}
    found = list(member_items(io.BytesIO(json.dumps(log).encode()), "samples", chunk=chunk))
    assert found == log["samples"]
    assert list(member_items(io.BytesIO(b'{"eval": {}}'), "samples")) == []


@pytest.mark.parametrize("data", [b"[1, 2", b'[{"a": 1} {"b": 2}]', b"{}", b"[1,]"])
def test_broken_json_is_one_error(data: bytes) -> None:
    with pytest.raises(JsonStreamError):
        list(array_items(io.BytesIO(data), chunk=3))


# --- logs: .eval and .json, Inspect's writer and the fast one ---------------------------


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("synthetic")


@pytest.fixture(scope="module")
def eval_logs(synthetic: Path) -> Path:
    write_runs(synthetic / "eval", 40)
    return synthetic / "eval"


def _copy(logs: Path, out: Path, suffix: str, cost: float | None = None) -> Path:
    """The logs written again by Inspect's own writer, as .eval or .json."""
    out.mkdir()
    for path in logs.glob("*.eval"):
        log = read_eval_log(str(path))
        if cost is not None:
            for usage in log.stats.model_usage.values():
                usage.total_cost = cost
        write_eval_log(log, str(out / (path.stem + suffix)))
    return out


def _tidy(folder: Path) -> pd.DataFrame:
    samples = load_runs([str(folder)]).samples
    return samples.sort_values(["version", "case"]).reset_index(drop=True)


@pytest.mark.slow
def test_a_json_log_and_an_eval_log_read_the_same(eval_logs: Path, synthetic: Path) -> None:
    ours = _tidy(eval_logs)
    assert len(ours) == 3 * 40 and set(ours["version"]) == {"v1", "v2", "v3"}
    pd.testing.assert_frame_equal(ours, _tidy(_copy(eval_logs, synthetic / "json", ".json")))
    # And the same as Inspect's own .eval writer: the fast writer lays logs out alike.
    pd.testing.assert_frame_equal(ours, _tidy(_copy(eval_logs, synthetic / "inspect", ".eval")))


@pytest.mark.slow
def test_inspect_reads_a_fast_written_log_as_it_was(eval_logs: Path, tmp_path: Path) -> None:
    path = next(eval_logs.glob("*.eval"))
    log = read_eval_log(str(path))
    write_log(log, tmp_path / path.name)
    again = read_eval_log(str(tmp_path / path.name))
    assert again.eval == log.eval and again.results == log.results
    assert [s.model_dump() for s in again.samples or []] == [
        s.model_dump() for s in log.samples or []
    ]


@pytest.mark.slow
def test_total_cost_is_nan_unless_recorded(eval_logs: Path, synthetic: Path) -> None:
    assert load_runs([str(eval_logs)]).logs["total_cost"].isna().all()
    costed = load_runs([str(_copy(eval_logs, synthetic / "costed", ".eval", cost=0.25))])
    assert costed.logs["total_cost"].tolist() == [0.25] * 3
