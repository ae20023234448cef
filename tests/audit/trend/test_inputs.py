"""`judge-audit trend` on audit.json files holding a bad number: each refused in one line naming
the file and the field, exit 2, nothing written; under fuzz, every edit of one value either
refused so or giving the very trend of the files as written (never a traceback, never other
figures)."""

import json
import random
from pathlib import Path
from typing import Any

import pytest

from farejudge.audit.cli import EXIT_INPUT, run
from tests.support.audit_files import (
    REFUSED,
    AuditedWeeks,
    Path_,
    audited_weeks,
    leaves,
    outcomes,
    removed,
    replaced,
    value_at,
)

MUTANTS = 150
SEED = 62


@pytest.fixture(scope="module")
def weeks(tmp_path_factory: pytest.TempPathFactory) -> AuditedWeeks:
    return audited_weeks(tmp_path_factory.mktemp("weeks"))


def _trend(audits: list[Path], out: Path) -> int:
    return run(["trend", *map(str, audits), "--out", str(out), "--quiet"])


def _refused(code: int, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line the trend refused its input with, having written nothing."""
    err = capsys.readouterr().err.splitlines()
    assert code == EXIT_INPUT, err
    assert len(err) == 1, err
    assert err[0].startswith("judge-audit: error: ")
    assert not out.exists()
    return err[0].removeprefix("judge-audit: error: ")


def _edited(weeks: AuditedWeeks, folder: Path, document: Any) -> list[Path]:
    """The weeks' audit.json files with the first one's replaced by `document`."""
    folder.mkdir()
    first = folder / "audit.json"
    first.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return [first, *weeks.audits[1:]]


def _audit(weeks: AuditedWeeks) -> Any:
    return json.loads(weeks.audits[0].read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("figure", "why"),
    [
        ({"estimate": 7.5, "low": 8.0, "high": 2.0}, "a share lies in [0, 1], not 7.5 [8.0, 2.0]"),
        ({"estimate": -1, "low": -1, "high": -1}, "a share lies in [0, 1], not -1.0 [-1.0, -1.0]"),
        ({"estimate": 0.5, "low": 0.6, "high": 0.4}, "low above high: 0.5 [0.6, 0.4]"),
        (
            {"estimate": 0.5, "low": 0.1, "high": 0.2},
            "the estimate lies outside its interval: 0.5 [0.1, 0.2]",
        ),
    ],
)
def test_a_rate_that_is_no_share_is_one_line_and_no_trend_folder(
    weeks: AuditedWeeks,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    figure: dict[str, float],
    why: str,
) -> None:
    document = replaced(_audit(weeks), ("estimate", "rate", "figure"), figure)
    audits = _edited(weeks, tmp_path / "edited", document)
    line = _refused(_trend(audits, tmp_path / "trend"), tmp_path / "trend", capsys)
    assert line == (
        f"{audits[0]}: field 'estimate.rate.figure': {why} (is it an audit.json of this "
        "version's judge-audit estimate?)"
    )


@pytest.mark.slow
def test_counts_that_contradict_their_figures_are_refused(
    weeks: AuditedWeeks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _audit(weeks)
    misses = value_at(document, ("agreement", "misses"))
    edited = replaced(document, ("agreement", "misses"), misses + 1)
    audits = _edited(weeks, tmp_path / "edited", edited)
    line = _refused(_trend(audits, tmp_path / "trend"), tmp_path / "trend", capsys)
    assert line.startswith(f"{audits[0]}: field 'agreement': sensitivity ")
    assert "as its counts say" in line


@pytest.mark.slow
def test_a_figure_json_cannot_hold_is_refused(
    weeks: AuditedWeeks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = weeks.audits[0].read_text(encoding="utf-8")
    rate = _audit(weeks)["estimate"]["rate"]["se"]
    folder = tmp_path / "edited"
    folder.mkdir()
    (folder / "audit.json").write_text(
        text.replace(f'"se": {rate!r}', '"se": NaN', 1), encoding="utf-8"
    )
    audits = [folder / "audit.json", *weeks.audits[1:]]
    line = _refused(_trend(audits, tmp_path / "trend"), tmp_path / "trend", capsys)
    assert line == (
        f"{audits[0]}: not JSON as audit.json is written (NaN is not a number JSON allows)"
    )


# --- fuzz ------------------------------------------------------------------------------------

# Values no number, count or flag of an audit.json may hold, or ones the trend reads nothing
# from where they are valid (a standard error, an effective number of labels): replacing a
# value by one of them must be refused or change nothing. A string field takes only the
# non-strings: another string is another valid name, not a bad number.
BAD = [
    "x",
    True,
    None,
    -1,
    -0.5,
    1.5,
    7.5,
    1e30,
    float("nan"),
    float("inf"),
    {"v": 1},
]


def _mutants(document: Any, count: int, rng: random.Random) -> list[tuple[str, Any]]:
    """`count` edits of one value each: replaced by a bad one, wrapped in a list, removed, or an
    interval's ends swapped; each with what it did."""
    paths = list(leaves(document))
    found: list[tuple[str, Any]] = []
    while len(found) < count:
        at: Path_ = rng.choice(paths)
        value = value_at(document, at)
        kind = rng.randrange(4)
        if kind == 0 and at and at[-1] in ("low", "high"):
            other = "high" if at[-1] == "low" else "low"
            parent = value_at(document, at[:-1])
            swapped = replaced(document, at, parent[other])
            found.append(
                (f"{at}: low and high swapped", replaced(swapped, (*at[:-1], other), value))
            )
        elif kind == 1 and at:
            found.append((f"{at}: removed", removed(document, at)))
        elif kind == 2:
            found.append((f"{at}: [{value!r}]", replaced(document, at, [value])))
        else:
            pool = [b for b in BAD if not isinstance(b, str)] if isinstance(value, str) else BAD
            bad = rng.choice(pool)
            found.append((f"{at}: {bad!r}", replaced(document, at, bad)))
    return found


@pytest.mark.slow
def test_any_one_bad_value_in_an_audit_json_is_refused_or_changes_nothing(
    weeks: AuditedWeeks, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = _audit(weeks)
    # The unedited file at the same path as each mutant, so that trend.json may be compared
    # byte for byte (it names its files).
    baseline = _edited(weeks, tmp_path / "mutant", document)
    expected_code = _trend(baseline, tmp_path / "baseline")
    expected = (tmp_path / "baseline" / "trend.json").read_bytes()
    capsys.readouterr()
    found = outcomes(
        _mutants(document, MUTANTS, random.Random(SEED)),
        lambda mutant: baseline[0].write_text(json.dumps(mutant, indent=2), encoding="utf-8"),
        lambda out: _trend(baseline, out),
        tmp_path,
        (expected_code, "trend.json", expected),
        capsys,
    )
    print(f"{MUTANTS} mutants of audit.json under trend: {dict(found)}")
    assert sum(found.values()) == MUTANTS
    assert found[REFUSED] > MUTANTS // 2
