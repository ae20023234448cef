"""Production periods judged in-process for the audit's tests: synthetic drafts, the scripted
judge (`farejudge.testing.production_runs`), logs as the task writes them; labels of a sample
written as judge-label writes them; a decision.json naming the scripted judge."""

import datetime
from collections.abc import Collection
from pathlib import Path

from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput

from farejudge.audit.stats.design import AuditSample
from farejudge.comparison.deploy.decision import decision
from farejudge.core.drafts import Draft
from farejudge.evals.judge_production import judge_production
from farejudge.labelling.label_file import append_label
from farejudge.labelling.records import Label, Span
from farejudge.testing.production_runs import judge_says, reply, synthetic_draft, ungrounded
from farejudge.testing.scripted_judge import mock_output
from farejudge.testing.synthetic_cases import synthetic_case, synthetic_judge
from tests.support.deploy_rows import case_rows, report_of
from tests.support.logprob_judges import logprob_output

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


SURE = 0.97
"""The held judge's confidence in a verdict it gets right."""
UNSURE = 0.6
"""Its confidence in a verdict it gets wrong: below any threshold of 0.9."""


def held_escalates(index: int) -> bool:
    """Whether the held judge, at a threshold between UNSURE and SURE, escalates synthetic
    draft `index`: where it fails or gets it wrong."""
    said = judge_says(index)
    return said == "failure" or (said == "ungrounded") != ungrounded(index)


def judge_period_held(drafts: Path, log_dir: Path, **options: object) -> EvalLog:
    """The production task over `drafts` graded by logprobs: the scripted judge's verdicts
    (`judge_says`), each with its token probabilities, SURE where right and UNSURE where
    wrong; `options` are more task options (`threshold=0.9`, `decision=...`)."""

    def answer(case_id: str) -> ModelOutput:
        index = int(case_id.removeprefix("syn-"))
        said = judge_says(index)
        if said == "failure":
            return mock_output(reply(case_id))
        grounded = said == "grounded"
        sure = UNSURE if held_escalates(index) else SURE
        claims = [] if grounded else [synthetic_case(index)["answer"].rstrip(".")]
        return logprob_output(grounded, 1 - sure if grounded else sure, claims)

    # The task function, not a task: Inspect creates it with the eval's model active, as
    # `inspect eval` does, so that a decision naming this model runs on it.
    (log,) = eval(
        judge_production,
        task_args={"drafts": str(drafts), "graded": "logprobs", **options},
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
    path: Path,
    drafts: list[Draft],
    sample: AuditSample,
    count: int | None = None,
    annotator: str = "ana",
    against: frozenset[str] = frozenset(),
) -> None:
    """The first `count` drafts of the sample (all by default) labelled by `annotator` with
    their truth, but the drafts in `against`, labelled against it."""
    by_id = {d.id: d for d in drafts}
    numbers = index_of(drafts)
    for draft in sample.ids[:count]:
        says = None if draft not in against else ungrounded(numbers[draft])
        append_label(path, truth_label(by_id[draft], numbers[draft], annotator, says))


def write_decision(path: Path, model: str = MODEL, wrong: set[int] | None = None) -> None:
    """A decision.json preferring v3 on `model` (20 hand-made gold cases, the judge wrong on
    `wrong`), beside a worse candidate."""
    rows = case_rows(model, {1, 4} if wrong is None else wrong)
    rows += case_rows("mockllm/worse", {0, 1, 2, 3, 4, 5, 6})
    path.write_text(
        decision(report_of(rows).deployment).model_dump_json(indent=2), encoding="utf-8"
    )
