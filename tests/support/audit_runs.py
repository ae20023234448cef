"""Production periods judged in-process for the audit's tests: synthetic drafts, the scripted
judge (`farejudge.testing.production_runs`), logs as the task writes them; labels of a sample
written as judge-label writes them; a decision.json naming the scripted judge."""

import datetime
from collections.abc import Collection
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput

from farejudge.audit.design import AuditSample
from farejudge.comparison.deploy.decision import decision
from farejudge.core.drafts import Draft
from farejudge.evals.judge_production import judge_production
from farejudge.labelling.label_file import append_label
from farejudge.labelling.records import Label, Span
from farejudge.testing.production_runs import reply, synthetic_draft, ungrounded
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import synthetic_judge
from tests.support.deploy_rows import case_rows, report_of

MODEL = "mockllm/model"
"""The scripted judge's name, as the logs record it."""


def judge_period(
    drafts: Path,
    log_dir: Path,
    shard: str | None = None,
    outage: Collection[int] = (),
) -> EvalLog:
    """The production task over `drafts` on the scripted judge; the synthetic drafts numbered
    in `outage` cannot reach it (their samples error)."""

    def answer(case_id: str) -> ModelOutput:
        if int(case_id.removeprefix("syn-")) in outage:
            raise ConnectionError("the stand-in judge is down")
        return mock_output(reply(case_id))

    task = judge_production(drafts=str(drafts), fail_on_error=False, shard=shard)
    (log,) = eval(
        task,
        model=synthetic_judge(answer),
        log_dir=str(log_dir),
        display="none",
    )
    return log


def index_of(drafts: list[Draft]) -> dict[str, int]:
    """Each synthetic draft's number, by its id."""
    return {synthetic_draft(i).id: i for i in range(len(drafts))}


def truth_label(
    draft: Draft, index: int, annotator: str = "ana", grounded: bool | None = None
) -> Label:
    """The synthetic truth of draft `index` as an annotator labels it (or the verdict given)."""
    says_grounded = not ungrounded(index) if grounded is None else grounded
    start = draft.answer.index("$")
    span = Span(start=start, end=start + 5, text=draft.answer[start : start + 5])
    return Label(
        case_id=draft.id,
        content_sha256=draft.content_sha256,
        annotator=annotator,
        grounded=says_grounded,
        spans=[] if says_grounded else [span],
        reason="read against P1",
        labelled_at=datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC),
    )


def label_sample(
    path: Path, drafts: list[Draft], sample: AuditSample, count: int | None = None
) -> None:
    """The first `count` drafts of the sample (all by default) labelled with their truth."""
    by_id = {d.id: d for d in drafts}
    numbers = index_of(drafts)
    for draft in sample.ids[:count]:
        append_label(path, truth_label(by_id[draft], numbers[draft]))


def write_decision(path: Path, model: str = MODEL, wrong: set[int] | None = None) -> None:
    """A decision.json preferring v3 on `model` (20 hand-made gold cases, the judge wrong on
    `wrong`), beside a worse candidate."""
    rows = case_rows(model, {1, 4} if wrong is None else wrong)
    rows += case_rows("mockllm/worse", {0, 1, 2, 3, 4, 5, 6})
    path.write_text(
        decision(report_of(rows).deployment).model_dump_json(indent=2), encoding="utf-8"
    )
