"""A judged week's sample through `judge-audit` in-process, and edits of its sample.json: the
issue-62 edits one by one, and a seeded mutator that makes many at random."""

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from farejudge.audit.cli import EXIT_INPUT, run
from farejudge.audit.stats.design import AuditSample
from farejudge.core.drafts import Draft
from farejudge.testing.production_runs import write_drafts
from tests.support.audit_runs import judge_period, judge_period_held, label_sample


@dataclass(frozen=True)
class Week:
    """A period of synthetic drafts the scripted judge judged into `logs`."""

    drafts: list[Draft]
    drafts_file: Path
    logs: Path


def judged_week(root: Path, count: int, outage: set[int] | None = None, held: bool = False) -> Week:
    """`count` synthetic drafts judged by the scripted judge (`held`: graded and held to a
    confidence threshold of 0.9); the drafts numbered in `outage` cannot reach it."""
    drafts = write_drafts(root / "drafts.jsonl", count)
    if held:
        judge_period_held(root / "drafts.jsonl", root / "logs", threshold=0.9)
    else:
        judge_period(root / "drafts.jsonl", root / "logs", outage=outage or set())
    return Week(drafts, root / "drafts.jsonl", root / "logs")


def draw(week: Week, out: Path, *extra: str, size: int, seed: int = 5) -> AuditSample:
    """`judge-audit sample` of the week into `out`, labelled in full by its truth in
    out/labels.jsonl."""
    argv = ["sample", "--drafts", str(week.drafts_file), "--size", str(size), "--seed", str(seed)]
    assert run([*argv, "--out", str(out), *extra]) == 0
    sample = AuditSample.model_validate_json((out / "sample.json").read_text(encoding="utf-8"))
    label_sample(out / "labels.jsonl", week.drafts, sample)
    return sample


def estimate(week: Week, sample: Path, labels: Path, out: Path) -> int:
    """`judge-audit estimate` of the week with the sample.json and labels given."""
    argv = ["estimate", str(week.logs), "--sample", str(sample), "--labels", str(labels)]
    return run([*argv, "--period", "W1", "--out", str(out), "--quiet"])


def refusal(code: int, capsys: pytest.CaptureFixture[str]) -> str:
    """The one line of a refusal (exit 2), without its prefix."""
    lines = capsys.readouterr().err.splitlines()
    assert code == EXIT_INPUT, lines
    assert len(lines) == 1, lines
    assert lines[0].startswith("judge-audit: error: ")
    return lines[0].removeprefix("judge-audit: error: ")


def edit(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    """sample.json at `path` with `change` made to it."""
    record = json.loads(path.read_text(encoding="utf-8"))
    change(record)
    path.write_text(json.dumps(record, indent=2), encoding="utf-8")


def figures(audit: Path) -> dict[str, Any]:
    """audit.json's content but the name of the sample file it was given."""
    record: dict[str, Any] = json.loads(audit.read_text(encoding="utf-8"))
    del record["sample"]["file"]
    return record


def _swap(items: list[Any], rng: random.Random) -> None:
    if len(items) > 1:
        i, j = rng.sample(range(len(items)), 2)
        items[i], items[j] = items[j], items[i]


def _flip(text: str, rng: random.Random) -> str:
    if not text:
        return "x"
    at = rng.randrange(len(text))
    return text[:at] + rng.choice("0123456789abcdef-x") + text[at + 1 :]


def _nudge(value: Any, rng: random.Random) -> Any:
    """A value of the same kind, most often close to it, or of another kind."""
    if isinstance(value, bool) or not isinstance(value, int | str | list):
        return rng.choice([None, 0, "", [], {}])
    if isinstance(value, int):
        return rng.choice([value + 1, value - 1, -value, value * 10, 0, 2**63, str(value)])
    if isinstance(value, str):
        return _flip(value, rng)
    return rng.choice([None, value[:-1], value + value[:1], value[::-1], "x"])


def _items(record: dict[str, Any], key: str) -> list[Any]:
    """The record's list at `key`, or an empty one where an earlier edit left none."""
    found = record.get(key)
    return found if isinstance(found, list) else []


def mutate(record: dict[str, Any], other_ids: list[str], rng: random.Random) -> None:
    """One random edit of a sample.json record, in place: a field nudged, an id or a
    stratum swapped, dropped, repeated or replaced by a draft the sample does not hold."""
    ids, stratum_of = _items(record, "ids"), _items(record, "stratum_of")
    strata = [s for s in _items(record, "strata") if isinstance(s, dict)]
    choice = rng.randrange(12)
    if choice == 0:
        record["seed"] = _nudge(record.get("seed"), rng)
    elif choice == 1:
        record["design"] = rng.choice(["uniform", "stratified", "escalated", None])
    elif choice == 2:
        key = rng.choice(["population", "population_hash", "strata_from"])
        record[key] = _nudge(record.get(key), rng)
    elif choice == 3 and strata:
        stratum = rng.choice(strata)
        key = rng.choice(["name", "population", "size"])
        stratum[key] = _nudge(stratum.get(key), rng)
    elif choice == 4 and strata:
        if rng.random() < 0.5:
            _swap(record["strata"], rng)
        else:
            record["strata"].append(dict(rng.choice(strata)))
    elif choice == 5:
        _swap(ids, rng)
    elif choice == 6 and ids:
        ids[rng.randrange(len(ids))] = rng.choice(other_ids)
    elif choice == 7 and ids:
        at = rng.randrange(len(ids))
        ids[at] = _flip(str(ids[at]), rng)
    elif choice == 8 and ids and len(stratum_of) == len(ids):
        at = rng.randrange(len(ids))
        ids.append(ids[at])
        stratum_of.append(stratum_of[at])
    elif choice == 9 and ids:
        at = rng.randrange(len(ids))
        del ids[at]
        if rng.random() < 0.5 and at < len(stratum_of):
            del stratum_of[at]
    elif choice == 10 and stratum_of:
        at = rng.randrange(len(stratum_of))
        stratum_of[at] = rng.choice(["all", "flagged", "passed", "decided", "escalated", 1])
    elif record:
        key = rng.choice(sorted(record))
        if rng.random() < 0.5:
            del record[key]
        else:
            record[key] = _nudge(record[key], rng)


def mutant_text(text: str, other_ids: list[str], rng: random.Random) -> str:
    """sample.json's text mutated: one to three edits of its record, or a byte-level change
    (a byte flipped, the file cut short, blank space added)."""
    kind = rng.randrange(10)
    if kind == 0:
        at = rng.randrange(len(text))
        return text[:at] + chr(rng.randrange(32, 127)) + text[at + 1 :]
    if kind == 1:
        return text[: rng.randrange(len(text))]
    if kind == 2:
        return "\n  " + text.replace(",", " ,", rng.randrange(1, 5)) + "\n\n"
    record = json.loads(text)
    for _ in range(rng.randint(1, 3)):
        mutate(record, other_ids, rng)
    return json.dumps(record, indent=rng.choice([None, 2]))
