"""Score the judge's reply on a production answer: its verdict alone, no gold to agree with.

The production task (`farejudge/judge_production`) judges every answer of a period. Its
scorer records what the audit's estimate reads (`judge-audit estimate`): the verdict
(`judge_ungrounded`, 1 or 0), the judge's P(ungrounded) where it gives one, and judge
failures (a reply with no verdict that can be read, counted and never guessed). It computes no
agreement: that needs labels, which the audit's sample brings. The reply is read as the gold
task's scorer reads it (`parse_verdict`, the graded score, refusals and provider errors).
"""

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, grouped, scorer
from inspect_ai.solver import TaskState

from farejudge.scorers.escalation import held_score
from farejudge.scorers.graded import Reading, graded_score, sample_reading
from farejudge.scorers.graded_option import GradedMode, GradedOption
from farejudge.scorers.length_bounds import over_long, over_long_note
from farejudge.scorers.logged_name import register_logged_name
from farejudge.scorers.metrics import flagged_rate, judge_failure_rate
from farejudge.scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict
from farejudge.scorers.verdict_scorer import output_failure, reasoning_parts, sample_errored
from farejudge.scorers.viewer_columns import SHOWN_DECIMALS

FAILURE = "judge failure"
FAILURE_LINE = (
    "It counts as a judge failure, never as grounded or ungrounded: the audit's estimate "
    "gives it the judge's rate over the period's answered answers (the failure rule)."
)


def _claims_lines(claims: list[str]) -> str:
    return "\n".join(f'- "{claim}"' for claim in claims)


def _verdict_word(verdict: ParsedVerdict | None) -> str:
    if verdict is None:
        return FAILURE
    return "grounded" if verdict.grounded else "ungrounded"


def _answer(verdict: ParsedVerdict | None) -> str:
    if verdict is None or verdict.grounded:
        return _verdict_word(verdict)
    n = len(verdict.unsupported_claims)
    return f"ungrounded ({n} claim{'s' if n != 1 else ''})"


def _explanation(verdict: ParsedVerdict | JudgeFailure, graded_line: str) -> str:
    """The judge's verdict in words, for the person reading the viewer."""
    if isinstance(verdict, JudgeFailure):
        paragraphs = [f"Judge failure: {verdict.reason}. {FAILURE_LINE}"]
    elif verdict.grounded:
        headline = "The judge says grounded: every claim is in the passages."
        if verdict.unsupported_claims:
            headline = (
                "The judge says grounded, yet lists unsupported claims (read as grounded, its "
                "'grounded' key):"
            )
        paragraphs = [headline, _claims_lines(verdict.unsupported_claims)]
    else:
        n = len(verdict.unsupported_claims)
        said = (
            f"{n} claim{'s' if n != 1 else ''} the passages do not support:"
            if n
            else "it names no claim."
        )
        paragraphs = [
            f"The judge says ungrounded: {said}",
            _claims_lines(verdict.unsupported_claims),
        ]
    if isinstance(verdict, ParsedVerdict):
        if verdict.reasoning:
            paragraphs.append(f"Judge's reasoning: {verdict.reasoning}")
        paragraphs.append(over_long_note(over_long(verdict.unsupported_claims, verdict.reasoning)))
    paragraphs.append(graded_line)
    if verdict.set_aside:
        paragraphs.append(f"Not read as the verdict: {verdict.set_aside}.")
    return "\n\n".join(p for p in paragraphs if p)


def production_score(output: ModelOutput, graded: GradedMode, metadata: Mapping[str, Any]) -> Score:
    """The Score of the judge's whole output on one production answer.

    `graded` is how the sample's graded score is got; `metadata` the sample's (its category,
    and what the logprobs said when the judge replied).
    """
    failure = output_failure(output)
    verdict: ParsedVerdict | JudgeFailure
    if failure is not None:
        verdict = JudgeFailure(failure)
    else:
        verdict = parse_verdict(
            output.completion, output.stop_reason, reasoning_parts(output.message)
        )
    parsed = verdict if isinstance(verdict, ParsedVerdict) else None
    reading: Reading | None = None
    if parsed is not None and graded == "logprobs":
        reading = sample_reading(output, metadata)
    grade = graded_score(graded, None if parsed is None else parsed.grounded, reading)
    value: dict[str, float | str] = {
        # What the audit reads: NaN is no verdict, which is neither grounded nor ungrounded.
        "judge_ungrounded": math.nan if parsed is None else float(not parsed.grounded),
        "judge_failure": float(parsed is None),
        "claims": 0.0 if parsed is None else float(len(parsed.unsupported_claims)),
        "p_ungrounded": grade.p_ungrounded,
        "graded_source": grade.source,
        # The viewer's columns.
        "category": str(metadata.get("category", "")),
        "verdict": _verdict_word(parsed),
        "p_shown": round(grade.p_ungrounded, SHOWN_DECIMALS),
    }
    return Score(
        value=value,
        answer=_answer(parsed),
        explanation=_explanation(verdict, grade.line),
        reason="grader_failed" if parsed is None else None,
    )


@scorer(
    metrics=[
        flagged_rate(),
        judge_failure_rate(),
        grouped(flagged_rate(), "category", all=False, name_template="category:{group_name}"),
    ]
)
def production_verdict(graded: str = "auto", threshold: float | None = None) -> Scorer:
    """The judge's verdict on a production answer: ungrounded (1) or grounded (0), its
    P(ungrounded) where it gives one, or a judge failure; no agreement (there is no gold).

    Args:
        graded: The task's `-T graded=` option: how each sample's graded score is got (auto,
            the task's default: by the sample's model).
        threshold: The deployed judge's confidence threshold (`-T threshold=`, or the
            decision's, checked by the task): each answer is then marked decided alone or
            escalated to a person, which the audit's sample labels in full; None marks
            nothing.
    """
    option = GradedOption.given(graded, "-S")

    async def score(state: TaskState, target: Target) -> Score | None:
        if sample_errored():
            # An outage, not the judge's behaviour: not scored, never a judge failure.
            return None
        mode = option.mode(str(state.model))
        scored = production_score(state.output, mode, state.metadata)
        return scored if threshold is None else held_score(scored, mode, threshold, SHOWN_DECIMALS)

    return score


# As the gold task's scorer: `inspect score LOG` finds it by the name the log records.
register_logged_name(production_verdict, "production_verdict")
