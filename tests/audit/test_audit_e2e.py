"""The weekly audit end to end, as docs/audit.md walks it, over two weeks.

Each week an assistant log (the sample log in tests/fixtures/, and a second week made from it:
the same records, each answer with a sentence more that claims nothing) goes through
`judge-intake`; every draft is judged by `inspect eval farejudge/judge_production` with
decision.json's judge, a stand-in on 127.0.0.1 that speaks OpenAI's wire format and whose
answers are known; `judge-audit sample` draws the week's sample; an annotator labels it on the
real `judge-label` page in headless Chromium; `judge-audit estimate` writes the week's audit;
then `judge-audit trend` reads both weeks. Every command runs as a subprocess, as a user runs
it. audit.json and trend.json are checked against the schemas `judge-audit schema` prints,
the estimate against the statistics on the known verdicts and labels, and each exit code
against the alerts: 1 with an alert, 0 without.
"""

import json
import math
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import jsonschema
import pytest

from farejudge.audit.estimate import estimate_period
from farejudge.audit.record import AuditRecord, TrendRecord
from farejudge.core.drafts import read_drafts
from tests.support.audit_runs import write_decision
from tests.support.browser import browser_page, select_range
from tests.support.children import running
from tests.support.json_server import serving
from tests.support.labels import KEY
from tests.support.offline_env import OFFLINE_OPENAI
from tests.support.paths import FIXTURES
from tests.support.standins.production_judge import production_judge

if TYPE_CHECKING:
    from playwright.sync_api import Page

BIN = Path(sys.executable).parent
JUDGE = "openai-api/standin/judge"
# The stand-in's verdicts by draft (the fixture's order): the truth is KEY's (1, 3, 4, 6, 7,
# 9 ungrounded); the judge misses 7 and 9, flags 8, and has no verdict on 2.
FLAGS = {1, 3, 4, 6, 8}
FAILS = {2}
SIZE, SEEDS = 8, {"2026-W48": 11, "2026-W49": 12}
WEEK_TWO_SUFFIX = " Thanks for asking."
ALERT_ABOVE = 0.10


def _command(
    cwd: Path, *argv: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    program = argv[0] if argv[0].startswith("/") else str(BIN / argv[0])
    return subprocess.run(
        [program, *argv[1:]],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def _week_two_log(path: Path, lines: list[int]) -> None:
    """The fixture's records drafted in the first week (their `lines`, 1-based), each a new
    request whose answer ends with a sentence that claims nothing."""
    records = (FIXTURES / "assistant_log.jsonl").read_text(encoding="utf-8").splitlines()
    week = []
    for line in lines:
        record = json.loads(records[line - 1])
        record["request_id"] += "-w2"
        record["response"]["text"] += WEEK_TWO_SUFFIX
        week.append(json.dumps(record))
    path.write_text("\n".join(week) + "\n", encoding="utf-8")


def _reply(index: int, answer: str) -> str:
    if index in FAILS:
        return "I think this one is fine, mostly."
    if index in FLAGS:
        claim = KEY.get(index, answer.split(".")[0])
        return json.dumps({"grounded": False, "unsupported_claims": [claim], "reasoning": "No."})
    return json.dumps({"grounded": True, "unsupported_claims": [], "reasoning": "In P1."})


def _label_on_the_page(page: "Page", cwd: Path, drafts: Path, truth: dict[str, str | None]) -> Path:
    """`judge-label` over the sample's drafts, an annotator labelling each with its truth in
    the browser: the span of an ungrounded answer highlighted and added, else grounded."""
    from playwright.sync_api import expect  # browser_page has skipped when it is missing

    argv = [str(BIN / "judge-label"), "--drafts", str(drafts), "--annotator", "ana", "--port", "0"]
    with running("judge-label", argv, cwd / "processes", cwd=cwd) as server:
        url = server.wait_for_line(r"Open (http://127\.0\.0\.1:\d+/)").group(1)
        page.goto(url)
        shown = read_drafts(cwd / drafts)
        for done, draft in enumerate(shown, start=1):
            expect(page.locator("#position")).to_contain_text(draft.id)
            span = truth[draft.id]
            if span is None:
                page.keyboard.press("g")
            else:
                select_range(page, span)
                page.keyboard.press("a")
            page.locator("#reason").fill("read against the passages")
            page.keyboard.press("Enter")
            expect(page.locator("#progress")).to_have_text(f"{done} of {len(shown)} labelled")
        assert server.stop(signal.SIGINT) == 0, server.stderr()
    return (cwd / drafts).parent / "labels" / "ana.jsonl"


def _week(
    page: "Page", cwd: Path, week: str, log: Path, env: dict[str, str], replies: dict[str, str]
) -> tuple[list[float], list[int], list[float]]:
    """One week through intake, the judge, the sample and the page: the judge's prediction
    for each draft (in the drafts file's order), the sample's places in it, and their labels."""
    mapping = FIXTURES / "assistant_log_mapping.toml"
    drafted = _command(
        cwd, "judge-intake", str(log), "--mapping", str(mapping), "--out", f"{week}/drafts.jsonl"
    )
    assert drafted.returncode == 0, drafted.stderr
    drafts = read_drafts(cwd / week / "drafts.jsonl")
    # The fixture's drafts, in its order, are the key's numbers; each week has the same ten.
    assert len(drafts) == 10
    for i, draft in enumerate(drafts):
        replies[draft.answer] = _reply(i, draft.answer)
    judged = _command(
        cwd,
        "inspect",
        "eval",
        "farejudge/judge_production",
        "-T",
        f"drafts={week}/drafts.jsonl",
        "-T",
        "decision=decision.json",
        "--log-dir",
        f"{week}/logs",
        "--display",
        "none",
        env=env,
    )
    assert judged.returncode == 0, judged.stdout + judged.stderr
    argv = ["sample", "--drafts", f"{week}/drafts.jsonl", "--size", str(SIZE)]
    sampled = _command(
        cwd, "judge-audit", *argv, "--seed", str(SEEDS[week]), "--out", f"{week}/sample"
    )
    assert sampled.returncode == 0, sampled.stderr
    ids = json.loads((cwd / week / "sample" / "sample.json").read_text(encoding="utf-8"))["ids"]
    place = {d.id: i for i, d in enumerate(drafts)}
    truth = {draft: KEY.get(place[draft]) for draft in ids}
    labels = _label_on_the_page(page, cwd, Path(week) / "sample" / "sample-drafts.jsonl", truth)
    assert labels == cwd / week / "sample" / "labels" / "ana.jsonl"
    predictions = [math.nan if i in FAILS else float(i in FLAGS) for i in range(len(drafts))]
    return predictions, [place[d] for d in ids], [float(truth[d] is not None) for d in ids]


@pytest.mark.browser
@pytest.mark.subprocess
def test_two_weeks_from_assistant_logs_to_the_trend(tmp_path: Path) -> None:
    cwd = tmp_path
    write_decision(cwd / "decision.json", model=JUDGE)
    replies: dict[str, str] = {}
    handler = production_judge(replies)
    schemas = {}
    for name in ("audit", "trend"):
        printed = _command(cwd, "judge-audit", "schema", name)
        assert printed.returncode == 0, printed.stderr
        schemas[name] = json.loads(printed.stdout)
    log_two = cwd / "week-two.jsonl"
    logs = {"2026-W48": FIXTURES / "assistant_log.jsonl", "2026-W49": log_two}
    expected = {}
    with serving(handler) as url, browser_page() as page:
        env = {**OFFLINE_OPENAI, "STANDIN_BASE_URL": url, "STANDIN_API_KEY": "none"}
        for week, log in logs.items():
            predictions, positions, labels = _week(page, cwd, week, log, env, replies)
            expected[week] = estimate_period(predictions, positions, labels)
            if week == "2026-W48":
                drafted = read_drafts(cwd / week / "drafts.jsonl")
                lines = [re.search(r":(\d+) \(", d.source) for d in drafted]
                _week_two_log(log_two, [int(found.group(1)) for found in lines if found])
    assert len(handler.requests) == 20, "every draft of both weeks judged, once"

    audits = []
    for week, found in expected.items():
        # As docs/audit.md runs it: each week's interval lies above 10 %, so the alert is up.
        assert found.rate.interval.low > ALERT_ABOVE
        argv = [
            "judge-audit",
            "estimate",
            f"{week}/logs",
            "--sample",
            f"{week}/sample/sample.json",
            "--labels",
            f"{week}/sample/labels/ana.jsonl",
            "--period",
            week,
            "--decision",
            "decision.json",
            "--out",
            f"{week}/audit",
        ]
        calm = _command(cwd, *argv, "--quiet")
        assert calm.returncode == 0, calm.stderr
        alert = _command(cwd, *argv, "--alert-above", str(ALERT_ABOVE))
        assert alert.returncode == 1, alert.stderr
        assert alert.stdout.startswith(f"# Production audit: {week}")
        assert "ALERT: the interval lies above 10.0 %." in alert.stderr
        written = json.loads((cwd / week / "audit" / "audit.json").read_text(encoding="utf-8"))
        jsonschema.validate(written, schemas["audit"])
        record = AuditRecord.model_validate(written)
        rate = record.estimate.rate.figure
        assert rate.estimate == pytest.approx(found.rate.estimate, abs=1e-12)
        assert rate.low == pytest.approx(found.rate.interval.low, abs=1e-12)
        assert rate.high == pytest.approx(found.rate.interval.high, abs=1e-12)
        assert record.population.drafts == 10 and record.population.judge_failures == 1
        assert record.sample.labelled == SIZE and record.sample.annotators == ["ana"]
        assert record.judge.model == JUDGE and record.at_pick is not None
        assert record.alert.raised
        audits.append(f"{week}/audit/audit.json")

    trend = ["judge-audit", "trend", *audits, "--out", "trend"]
    calm = _command(cwd, *trend, "--quiet")
    assert calm.returncode == 0, calm.stderr
    written = json.loads((cwd / "trend" / "trend.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, schemas["trend"])
    record_trend = TrendRecord.model_validate(written)
    assert [p.period for p in record_trend.periods] == list(expected)
    assert record_trend.drift.periods == list(expected) and not record_trend.drift.alarm
    raised = _command(cwd, *trend, "--alert-above", str(ALERT_ABOVE))
    assert raised.returncode == 1, raised.stderr
    assert "alert: rate: 2026-W49's interval" in raised.stderr
