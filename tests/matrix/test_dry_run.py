"""judge-matrix --dry-run and --model-cost-config: what a run sends and what it costs."""

import math
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import ModelCost, get_model_info, set_model_info

from farejudge.comparison.cli import EXIT_INPUT as COMPARE_REFUSED
from farejudge.comparison.cli import run as compare
from farejudge.matrix.cli import EXIT_INPUT, EXIT_OK, matrix_tasks, run
from farejudge.matrix.dry_run import CHARS_PER_TOKEN, NO_PRICE, estimate
from tests.support.json_server import serving
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.scripted_cases import write_cases
from tests.support.standins.openai_platform import (
    ANSWER_TOKENS,
    INPUT_TOKENS,
    OpenAIPlatform,
    platform,
)

MODEL = "openai/gpt-4o-mini"
PRICES = {"input": 0.15, "output": 0.6, "input_cache_write": 0.15, "input_cache_read": 0.075}
ENV = OFFLINE_OPENAI


def price_file(path: Path, model: str = MODEL, **prices: object) -> Path:
    fields = "".join(f"  {k}: {v}\n" for k, v in {**PRICES, **prices}.items() if v is not None)
    path.write_text(f"{model}:\n{fields}", encoding="utf-8")
    return path


@pytest.fixture
def server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, type[OpenAIPlatform]]]:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    # A price file's prices stay in Inspect's model registry for the rest of the process.
    unpriced = get_model_info(MODEL)
    assert unpriced is not None and unpriced.cost is None
    handler = platform()
    try:
        with serving(handler) as url:
            yield url, handler
    finally:
        set_model_info(MODEL, unpriced)


def test_the_estimate_counts_every_version_model_case_and_epoch(tmp_path: Path) -> None:
    cases = write_cases(tmp_path / "cases.jsonl")
    tasks = matrix_tasks(["v1", "v3"], {"dataset": str(cases)})
    price = ModelCost(**PRICES)
    one = estimate(tasks, [MODEL, "mockllm/model"], 1, None, None, {MODEL: price})
    two = estimate(tasks, [MODEL, "mockllm/model"], 2, 2, True, {MODEL: price})
    n_cases = len(list(tasks[0].dataset))
    assert [line.requests for line in one] == [n_cases] * 4
    assert [line.requests for line in two] == [2 * 2] * 4
    # v3 shows the rider's earlier turns and the passages' provenance: a longer prompt.
    assert one[2].input_tokens > one[0].input_tokens
    chars = sum(
        len(m.text) for s in tasks[0].dataset if not isinstance(s.input, str) for m in s.input
    )
    assert one[0].input_tokens == math.ceil(chars / CHARS_PER_TOKEN)
    for line in one:
        if line.model == MODEL:
            assert line.cost == pytest.approx(
                (line.input_tokens * price.input + line.output_tokens * price.output) / 1e6
            )
        else:
            assert line.cost is None


@pytest.mark.slow
def test_the_dry_run_counts_what_the_run_then_sends(
    tmp_path: Path, server: tuple[str, type[OpenAIPlatform]], capsys: pytest.CaptureFixture[str]
) -> None:
    url, handler = server
    cases = write_cases(tmp_path / "cases.jsonl")
    prices = price_file(tmp_path / "prices.yaml")
    argv = [
        *["--model", MODEL, "--model-base-url", url, "--versions", "v1,v2", "--epochs", "2"],
        *["--limit", "3", "--log-dir", str(tmp_path / "logs"), "-T", f"dataset={cases}"],
        *["-T", "constrained=true", "--model-cost-config", str(prices)],
    ]
    assert run([*argv, "--dry-run"]) == EXIT_OK
    printed = capsys.readouterr().out
    assert handler.requests == [] and not (tmp_path / "logs").exists()
    match = re.search(r"^requests: (\d+) ", printed, re.M)
    assert match, printed
    assert "/ 4; no tokenizer is used" in printed and str(prices) in printed

    assert run(argv) == EXIT_OK
    assert len(handler.requests) == int(match.group(1))

    # The price file fills each run's cost, and the report shows it per 1,000 answers.
    logs = [read_eval_log(i, header_only=True) for i in list_eval_logs(str(tmp_path / "logs"))]
    for log in logs:
        assert log.stats.model_usage[MODEL].total_cost == pytest.approx(
            3 * 2 * (INPUT_TOKENS * PRICES["input"] + ANSWER_TOKENS * PRICES["output"]) / 1e6
        )
    out = tmp_path / "report"
    # The gate may fail on so few cases; the report is written either way.
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"]) != COMPARE_REFUSED
    per_answer = (INPUT_TOKENS * PRICES["input"] + ANSWER_TOKENS * PRICES["output"]) / 1e6
    assert f"${per_answer * 1000:,.4f}" in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_without_a_price_file_the_report_says_so(
    tmp_path: Path, server: tuple[str, type[OpenAIPlatform]]
) -> None:
    url, _ = server
    cases = write_cases(tmp_path / "cases.jsonl")
    argv = ["--model", MODEL, "--model-base-url", url, "--versions", "v1", "--limit", "2"]
    assert run([*argv, "--log-dir", str(tmp_path / "logs"), "-T", f"dataset={cases}"]) == EXIT_OK
    out = tmp_path / "report"
    # The gate may fail on so few cases; the report is written either way.
    assert compare([str(tmp_path / "logs"), "--out", str(out), "--quiet"]) != COMPARE_REFUSED
    assert NO_PRICE in (out / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "No such file or directory"),
        ("a: [b", "line 1: not YAML or JSON"),
        ("- just a list\n", "give a mapping of model name to prices"),
        ("missing_output", f"{MODEL}: bad or missing output"),
        ("unknown_model", "no-such/model: not in Inspect's model database"),
    ],
)
def test_a_bad_price_file_is_one_line_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, says: str
) -> None:
    path = tmp_path / "prices.yaml"
    if content == "missing_output":
        price_file(path, output=None)
    elif content == "unknown_model":
        price_file(path, model="no-such/model")
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    argv = ["--model", MODEL, "--log-dir", str(tmp_path / "logs"), "--dry-run"]
    assert run([*argv, "--model-cost-config", str(path)]) == EXIT_INPUT
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"judge-matrix: error: --model-cost-config {path}")
    assert says in line
