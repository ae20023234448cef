"""The gate on runs that did not judge their whole case set: a `--limit`, a run stopped midway.

Issue 17 found the gate passing a newest run that had judged 10 of 18 cases, and counting a
run stopped by `fail_on_error` as "31 errored" where 93 of 144 cases were missing.
"""

import warnings
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from farejudge.comparison.cli import EXIT_GATE, EXIT_OK, run
from farejudge.evals.dataset import load_cases
from farejudge.evals.judge_groundedness import judge_groundedness
from farejudge.testing.scripted_judge import echo_gold, invert_gold, mock_output
from farejudge.testing.synthetic_cases import synthetic_judge, write_cases
from tests.support.cli import task_file
from tests.support.fault_judge import Fault

MODEL = "mockllm/model"


def judge(
    version: str,
    cases: Path,
    log_dir: Path,
    limit: int | None = None,
    wrong: frozenset[str] = frozenset(),
) -> EvalLog:
    """A run of `version` over the case file, on its first `limit` cases if given, by a judge
    that gets the `wrong` cases wrong and the others right."""
    by_id = {case.id: case for case in load_cases(cases)}

    def reply(case_id: str) -> ModelOutput:
        case = by_id[case_id]
        return mock_output(invert_gold(case) if case_id in wrong else echo_gold(case))

    (log,) = eval(
        judge_groundedness(prompt_version=version, dataset=str(cases)),
        model=synthetic_judge(reply),
        log_dir=str(log_dir),
        limit=limit,
        display="none",
    )
    assert log.status == "success", log.error
    return log


def compare(tmp_path: Path, *options: str) -> tuple[int, str, str]:
    """judge-compare over tmp_path/logs: exit status, the Markdown report, the HTML page."""
    out = tmp_path / "report"
    code = run(
        [str(tmp_path / "logs"), "--out", str(out), "--quiet", "--resamples", "50", *options]
    )
    return (
        code,
        (out / "report.md").read_text(encoding="utf-8"),
        (out / "report.html").read_text(encoding="utf-8"),
    )


@pytest.mark.slow
# The two figures: a small case file, and the gold set's size.
@pytest.mark.parametrize(("count", "limit"), [(18, 10), (144, 110)])
def test_a_limited_newest_run_makes_the_gate_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], count: int, limit: int
) -> None:
    cases = tmp_path / "cases.jsonl"
    write_cases(cases, count)
    judge("v1", cases, tmp_path / "logs")
    judge("v2", cases, tmp_path / "logs")
    v3 = judge("v3", cases, tmp_path / "logs", limit=limit)
    capsys.readouterr()

    code, md, _ = compare(tmp_path)

    err = capsys.readouterr().err
    unjudged = count - limit
    assert code == EXIT_GATE, err
    assert "gate: INCOMPLETE (1)" in err
    line = (
        f"incomplete: v3 with {MODEL}: {unjudged} of {count} cases not judged (0 errored, "
        f"{unjudged} never run); it ran with --limit {limit}"
    )
    assert line in err and line in md
    assert "`judge-compare --partial`" in err
    assert Path(v3.location).name in md
    assert "## Gate: INCOMPLETE" in md


@pytest.mark.slow
def test_partial_compares_a_limited_run_on_the_cases_it_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    ids = write_cases(cases, 18)
    judge("v2", cases, tmp_path / "logs")
    good = judge("v3", cases, tmp_path / "logs", limit=10)
    capsys.readouterr()

    code, md, html = compare(tmp_path, "--partial")

    assert code == EXIT_OK, capsys.readouterr().err
    assert "gate: passed" in capsys.readouterr().err
    said = f"v3 with {MODEL} is compared on the 10 of its 18 cases it was given (--limit 10)"
    # At the top: under the title, before the gate and every figure.
    top = md.split("\n## ")[0]
    assert "Partial comparison (judge-compare --partial)" in top and said in top
    assert said in html.split("<h2")[0]
    assert "## Gate: PASSED" in md
    assert "10 fixed, 0 broken" not in md and "0 fixed, 0 broken of 10 cases" in md

    # The gate holds the partial run to those cases: breaking one of them still fails it.
    Path(good.location).unlink()
    judge("v3", cases, tmp_path / "logs", limit=10, wrong=frozenset({ids[3]}))
    code, md, _ = compare(tmp_path, "--partial")
    assert code == EXIT_GATE
    assert f"v3 breaks {ids[3]} with {MODEL}" in capsys.readouterr().err
    assert "## Gate: FAILED" in md


@pytest.mark.slow
def test_a_run_stopped_by_fail_on_error_counts_errored_and_never_run_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 144
    ids = write_cases(tmp_path / "cases.jsonl", count)
    # Two samples hang until the run stops, so some are surely in flight then; from the 41st
    # case on, the provider answers HTTP 500 until the error share stops the run.
    faults: dict[str, Fault] = {ids[0]: "timeout", ids[1]: "timeout"}
    faults |= {case: "server error" for case in ids[40:]}
    (log,) = eval(
        task_file(),
        task_args={"dataset": str(tmp_path / "cases.jsonl"), "fail_on_error": 0.1},
        model=get_model(
            "faulty_judge/flaky", faults=faults, config=GenerateConfig(max_retries=1), memoize=False
        ),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=1,
        max_connections=10,
    )
    stopped = read_eval_log(log.location)
    assert stopped.status == "error" and stopped.error is not None
    samples = stopped.samples or []
    judged = [s for s in samples if s.error is None]
    cancelled = [s for s in samples if s.error and s.error.message.startswith("CancelledError(")]
    errored = [s for s in samples if s.error and s not in cancelled]
    assert len(cancelled) >= 2 and errored, "the stop the test is about did not happen"
    missing = count - len(judged)
    never_run = count - len(judged) - len(errored)
    capsys.readouterr()

    for options in [(), ("--partial",)]:
        code, md, _ = compare(tmp_path, *options)
        err = capsys.readouterr().err
        assert code == EXIT_GATE and "gate: INCOMPLETE (1)" in err, options
        line = (
            f"incomplete: v3 with faulty_judge/flaky: {missing} of {count} cases not judged "
            f"({len(errored)} errored, {never_run} never run, {len(cancelled)} of them "
            "cancelled in flight); the run stopped on: judge unreachable: "
            "InternalServerError: HTTP 500: The server had an error"
        )
        assert line in err and line in md, err
        assert f"`inspect eval-retry {log.location}`" in err
        # Nothing was left out on purpose: the report says --partial changed nothing.
        assert ("Every run here was given its whole case set." in md) == bool(options)


@pytest.mark.slow
def test_a_run_whose_every_sample_errored_is_incomplete_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    count = 6
    ids = write_cases(tmp_path / "cases.jsonl", count)
    faults: dict[str, Fault] = dict.fromkeys(ids, "server error")
    eval(
        task_file(),
        task_args={"dataset": str(tmp_path / "cases.jsonl"), "fail_on_error": False},
        model=get_model(
            "faulty_judge/dead", faults=faults, config=GenerateConfig(max_retries=1), memoize=False
        ),
        log_dir=str(tmp_path / "logs"),
        display="none",
        max_retries=1,
    )
    capsys.readouterr()

    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        code, md, _ = compare(tmp_path)

    # The report's plots have nothing to draw, and say so rather than warn.
    assert not [str(w.message) for w in raised if issubclass(w.category, UserWarning)]
    err = capsys.readouterr().err
    assert code == EXIT_GATE and "gate: INCOMPLETE (1)" in err, err
    line = f"incomplete: v3 with faulty_judge/dead: {count} of {count} cases not judged "
    assert f"{line}({count} errored, 0 never run)" in err
    assert "## Gate: INCOMPLETE" in md
