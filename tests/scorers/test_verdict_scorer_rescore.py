"""Re-scoring a log (`inspect score`, `score()`) keeps outages apart, exactly as the run did:
an errored sample stays unscored and out of every metric."""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest
from inspect_ai import eval, score
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import GenerateConfig, get_model

from farejudge.scorers.verdict_scorer import verdict_agreement
from farejudge.testing.synthetic_cases import write_cases
from tests.support.cli import INSPECT, REPO_ROOT, task_file
from tests.support.fault_judge import Fault

# Issue 17's log: 9 samples, 2 of them outages (HTTP 500 on every attempt). One more is a
# judge failure, so that a failure rate counted over the wrong samples shows.
OUTAGES = (1, 4)
PROSE = 6


def run(tmp_path: Path, faults_at: dict[int, Fault], graded: str = "auto") -> EvalLog:
    """The run's log as read back from its file, which is what re-scoring starts from."""
    tmp_path.mkdir(exist_ok=True)
    ids = write_cases(tmp_path / "cases.jsonl", 9)
    (log,) = eval(
        task_file(),
        task_args={
            "dataset": str(tmp_path / "cases.jsonl"),
            "fail_on_error": 0.5,
            "graded": graded,
        },
        model=get_model(
            "faulty_judge/flaky",
            faults={ids[i]: fault for i, fault in faults_at.items()},
            config=GenerateConfig(max_retries=1),
            memoize=False,
        ),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=1,
    )
    return read_eval_log(log.location)


def errored_run(tmp_path: Path, graded: str = "auto") -> EvalLog:
    log = run(tmp_path, {**dict.fromkeys(OUTAGES, "server error"), PROSE: "prose"}, graded)
    assert log.status == "success" and log.samples is not None
    assert sum(s.error is not None for s in log.samples) == len(OUTAGES)
    return log


def figures(log: EvalLog) -> dict[str, object]:
    """Every metric of the verdict scorer, and the sample counts; NaN as a string, so equal
    figures compare equal."""
    assert log.results is not None
    (scores,) = log.results.scores
    metrics: dict[str, object] = {
        name: "nan" if math.isnan(m.value) else m.value for name, m in scores.metrics.items()
    }
    return {
        **metrics,
        "completed_samples": log.results.completed_samples,
        "total_samples": log.results.total_samples,
    }


def sample_scores(log: EvalLog) -> dict[str, str]:
    """Each sample's scores as JSON, where NaN (no verdict's `judge_ungrounded`) equals NaN."""
    return {
        str(s.id): json.dumps({k: v.model_dump() for k, v in (s.scores or {}).items()})
        for s in log.samples or []
    }


def rescored(log: EvalLog) -> EvalLog:
    return score(log, verdict_agreement(), action="overwrite", display="none")


def test_rescoring_leaves_errored_samples_unscored_and_changes_nothing_else(
    tmp_path: Path,
) -> None:
    log = errored_run(tmp_path / "errored")
    before = figures(log)
    assert before["verdict_accuracy"] == pytest.approx(6 / 7)
    assert before["judge_failure_rate"] == pytest.approx(1 / 7)

    after = rescored(log)

    assert figures(after) == before
    assert after.samples is not None
    for sample in after.samples:
        if sample.error is not None:
            assert not sample.scores, f"{sample.id} errored, yet was scored"
    assert sample_scores(after) == sample_scores(log)

    clean = run(tmp_path / "clean", {PROSE: "prose"})
    assert clean.samples is not None and not [s for s in clean.samples if s.error]
    clean_after = rescored(clean)
    assert figures(clean_after) == figures(clean)
    assert sample_scores(clean_after) == sample_scores(clean)


@pytest.mark.subprocess
def test_inspect_score_leaves_errored_samples_unscored(tmp_path: Path) -> None:
    log = errored_run(tmp_path)
    out = tmp_path / "rescored.eval"
    done = subprocess.run(
        [
            INSPECT, "score", log.location, "--action", "overwrite", "--output-file", str(out),
            # The log's judge is this test suite's provider, which the command line cannot
            # build (an OpenAI judge would want some OPENAI_API_KEY); scoring calls no model.
            "--model", "mockllm/model",
            # Inspect records the scorer's name without its package, and an installed package's
            # scorer is registered with it.
            "--scorer", "farejudge/verdict_agreement",
            "--display", "none",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

    after = read_eval_log(str(out))

    assert figures(after) == figures(log)
    assert sample_scores(after) == sample_scores(log)


@pytest.mark.subprocess
@pytest.mark.parametrize("where", ["checkout", "elsewhere"])
def test_plain_inspect_score_finds_the_scorer_the_log_names(tmp_path: Path, where: str) -> None:
    # Issue 26, finding 9: the log names the scorer "verdict_agreement", without its package.
    # From elsewhere the log's task file (a relative path) is not there to load it from.
    # Not the default graded option: the command builds the scorer with the one the log records.
    log = errored_run(tmp_path / "run", graded="off")
    out = tmp_path / "rescored.eval"
    done = subprocess.run(
        [
            INSPECT, "score", log.location, "--action", "overwrite", "--output-file", str(out),
            "--model", "mockllm/model", "--display", "none",
        ],
        cwd=REPO_ROOT if where == "checkout" else tmp_path,
        env={**os.environ, "OPENAI_API_KEY": "sk-dummy-standin"},
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    after = read_eval_log(str(out))
    assert figures(after) == figures(log)
    assert sample_scores(after) == sample_scores(log)
    values = [s.scores["verdict_agreement"].value for s in after.samples or [] if s.scores]
    assert values and all(isinstance(v, dict) and v["graded_source"] == "none" for v in values)
