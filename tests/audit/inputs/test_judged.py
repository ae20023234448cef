"""`judge-audit estimate` on a `.json` production log holding a value the task never writes:
each refused in one line naming the log, the sample and the field, exit 2, nothing written;
under fuzz, every edit of one value the audit reads either refused so or giving the very
audit.json of the log as written (never a traceback, never other figures)."""

import json
import random
from pathlib import Path
from typing import Any

import pytest

from farejudge.audit.cli import EXIT_INPUT, run
from tests.support.audit_files import (
    REFUSED,
    SAME,
    AuditedWeeks,
    Path_,
    audited_weeks,
    leaves,
    outcomes,
    removed,
    replaced,
    value_at,
)

MUTANTS = 120
SEED = 62
SCORE = ("scores", "production_verdict", "value")


@pytest.fixture(scope="module")
def weeks(tmp_path_factory: pytest.TempPathFactory) -> AuditedWeeks:
    return audited_weeks(tmp_path_factory.mktemp("weeks"))


@pytest.fixture(scope="module")
def log(weeks: AuditedWeeks) -> Any:
    return json.loads(weeks.json_log.read_text(encoding="utf-8"))


def _estimate(weeks: AuditedWeeks, log: Path, out: Path) -> int:
    argv = ["estimate", str(log), "--sample", str(weeks.sample), "--labels", str(weeks.labels)]
    return run([*argv, "--period", "W1", "--out", str(out), "--quiet"])


def _write(path: Path, document: Any) -> Path:
    path.parent.mkdir(exist_ok=True)
    # As Inspect writes a .json log: NaN where a score has none.
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _sampled(log: Any, weeks: AuditedWeeks) -> int:
    """The position in the log of a sample the week's sample drew (its label is read)."""
    drawn = set(json.loads(weeks.sample.read_text(encoding="utf-8"))["ids"])
    return next(i for i, s in enumerate(log["samples"]) if s["id"] in drawn)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("at", "value", "why"),
    [
        (
            (*SCORE, "judge_ungrounded"),
            [1],
            "field 'scores.production_verdict.value."
            "judge_ungrounded': Input should be a valid number",
        ),
        (("scores",), 1e30, "field 'scores': Input should be a valid dictionary"),
        (
            (*SCORE, "judge_ungrounded"),
            7,
            "field 'scores.production_verdict.value': judge_ungrounded 7.0 is neither 0 nor 1",
        ),
        (
            (*SCORE, "judge_failure"),
            0.5,
            "field 'scores.production_verdict.value': judge_failure 0.5 is neither 0 nor 1",
        ),
        (
            (*SCORE, "p_ungrounded"),
            1.5,
            "field 'scores.production_verdict.value': p_ungrounded 1.5 is not a probability "
            "in [0, 1]",
        ),
        (("epoch",), "1", "field 'epoch': Input should be a valid integer"),
    ],
)
def test_a_value_the_task_never_writes_is_one_line_naming_the_sample_and_field(
    weeks: AuditedWeeks,
    log: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    at: Path_,
    value: object,
    why: str,
) -> None:
    position = _sampled(log, weeks)
    sample = log["samples"][position]
    edited = _write(
        tmp_path / "logs" / "production.json", replaced(log, ("samples", position, *at), value)
    )
    code = _estimate(weeks, edited, tmp_path / "out")
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_INPUT
    # The sample as it reads in the file, its epoch the edited one where that is the field.
    epoch = value if at == ("epoch",) else sample["epoch"]
    assert err == [f"judge-audit: error: {edited}: sample {sample['id']!r} epoch {epoch!r}: {why}"]
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_threshold_that_is_no_probability_is_one_line(
    weeks: AuditedWeeks, log: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    edited = _write(
        tmp_path / "logs" / "production.json",
        replaced(log, ("eval", "metadata", "threshold"), 7.5),
    )
    code = _estimate(weeks, edited, tmp_path / "out")
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_INPUT
    assert err == [
        f"judge-audit: error: {edited}: eval metadata: field 'threshold': Input should be "
        "less than or equal to 1"
    ]
    assert not (tmp_path / "out").exists()


# --- fuzz ------------------------------------------------------------------------------------

# What a bad value may be: no number, flag or mapping of what the audit reads holds one of
# them. A string takes only the non-strings (another string is another valid name).
BAD = ["x", True, None, -1, -0.5, 1.5, 7, 7.5, 1e30, float("nan"), float("inf"), [1], {"v": 1}]
HEADER = ("eval", "metadata")
READ_IN_HEADER = ("population", "population_sha256", "threshold", "graded", "prompt_version")


def _targets(log: Any) -> list[Path_]:
    """Every value the audit reads of a sample or of the run, and the mappings holding them."""
    found: list[Path_] = [(*HEADER, key) for key in READ_IN_HEADER]
    for position, sample in enumerate(log["samples"]):
        at: Path_ = ("samples", position)
        found += [(*at, "id"), (*at, "epoch"), (*at, "scores"), (*at, "metadata")]
        found += [(*at, "scores", "production_verdict"), (*at, *SCORE)]
        found += [(*at, *path) for path in leaves(sample["scores"], ("scores",))]
        found += [(*at, "metadata", "category"), (*at, "metadata", "content_sha256")]
    return found


def _mutants(log: Any, count: int, rng: random.Random) -> list[tuple[str, Any]]:
    targets = _targets(log)
    found: list[tuple[str, Any]] = []
    while len(found) < count:
        at = rng.choice(targets)
        value = value_at(log, at)
        if rng.randrange(4) == 0:
            found.append((f"{at}: removed", removed(log, at)))
            continue
        pool = [b for b in BAD if not isinstance(b, str)] if isinstance(value, str) else BAD
        bad = rng.choice(pool)
        found.append((f"{at}: {bad!r}", replaced(log, at, bad)))
    return found


@pytest.mark.slow
def test_any_one_bad_value_in_a_production_log_is_refused_or_changes_nothing(
    weeks: AuditedWeeks, log: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each mutant at the same path as the log it edits, so that audit.json, which names its
    # logs, may be compared byte for byte.
    path = _write(tmp_path / "logs" / "production.json", log)
    expected_code = _estimate(weeks, path, tmp_path / "baseline")
    expected = (tmp_path / "baseline" / "audit.json").read_bytes()
    capsys.readouterr()
    found = outcomes(
        _mutants(log, MUTANTS, random.Random(SEED)),
        lambda mutant: _write(path, mutant),
        lambda out: _estimate(weeks, path, out),
        tmp_path,
        (expected_code, "audit.json", expected),
        capsys,
    )
    print(f"{MUTANTS} mutants of a .json production log under estimate: {dict(found)}")
    assert sum(found.values()) == MUTANTS
    # Most of a score's keys are the viewer's, which the audit does not read: about half the
    # mutants edit one of those.
    assert found[REFUSED] >= MUTANTS // 4
    assert found[SAME] >= MUTANTS // 4
