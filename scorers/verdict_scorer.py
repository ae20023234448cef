"""Score a judge reply against the case's gold verdict."""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from inspect_ai.event import ErrorEvent
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ContentReasoning,
    ContentText,
    ModelOutput,
)
from inspect_ai.scorer import Score, Scorer, Target, grouped, scorer
from inspect_ai.solver import TaskState

from farejudge.core.case_schema import Verdict
from farejudge.core.sample_case import GoldTarget, case_texts
from farejudge.core.spans import SpanOverlap, quote_overlap
from farejudge.scorers.claims import ClaimComparison, compare_claims
from farejudge.scorers.escalation import held_score
from farejudge.scorers.graded import GradedScore, Reading, graded_score, sample_reading
from farejudge.scorers.graded_option import GradedMode, GradedOption
from farejudge.scorers.length_bounds import over_long, over_long_note
from farejudge.scorers.logged_name import register_logged_name
from farejudge.scorers.metrics import (
    Counts,
    balanced_accuracy,
    claim_precision,
    claim_recall,
    cohen_kappa,
    consistency_failure_rate,
    f1,
    judge_failure_rate,
    precision,
    recall,
    span_f1,
    span_precision,
    span_recall,
    verdict_accuracy,
)
from farejudge.scorers.verdict import JudgeFailure, ParsedVerdict, parse_verdict
from farejudge.scorers.viewer_columns import SHOWN_DECIMALS, review_fields


class Graded(Protocol):
    """What a reply is scored against: gold's verdict, the answer its claims quote, and why.

    A `Case` is one; the scorer reads one off the sample without validating the case again.
    """

    @property
    def label(self) -> Verdict: ...

    @property
    def answer(self) -> str: ...

    @property
    def rationale(self) -> str: ...


@dataclass(frozen=True)
class Gold:
    label: Verdict
    answer: str
    rationale: str
    edit: str | None = None
    """How a metamorphic case was derived from its gold case, "before → after"."""
    question: str = ""
    """The rider's question, for the viewer's column."""

    @classmethod
    def of_sample(
        cls, prompt: str | Sequence[ChatMessage], target: str, metadata: Mapping[str, Any]
    ) -> "Gold":
        """Gold from where a sample keeps it (`core/sample_case.py`): the target; the answer
        and the question from the prompt."""
        gold = GoldTarget.model_validate_json(target)
        texts = case_texts(prompt, gold, metadata)
        return cls(
            label=gold.label,
            answer=texts.answer,
            rationale=texts.rationale,
            edit=metadata.get("edit"),
            question=texts.question,
        )


def _word(grounded: bool) -> str:
    return "grounded" if grounded else "ungrounded"


def _quote_list(claims: list[str]) -> str:
    return "; ".join(f'"{c}"' for c in claims)


def _claim_lines(cmp: ClaimComparison) -> list[str]:
    lines = [
        f'- Matched: "{j}"' if j == g else f'- Matched: judge "{j}" = gold "{g}"'
        for j, g in cmp.matched
    ]
    if cmp.missed:
        lines.append(f"- Missed (in gold, not flagged by the judge): {_quote_list(cmp.missed)}")
    if cmp.extra:
        lines.append(f"- Extra (flagged by the judge, not in gold): {_quote_list(cmp.extra)}")
    if cmp.not_in_answer:
        lines.append(f"- Not a quotation of the answer: {_quote_list(cmp.not_in_answer)}")
    return lines


def _span_line(spans: SpanOverlap) -> str:
    """The span overlap in words, for the explanation."""
    if spans.predicted == spans.gold == spans.overlap:
        return f"Span overlap: the judge quoted exactly gold's {spans.gold} characters."
    judge = (
        f"{spans.overlap} of the judge's {spans.predicted} quoted characters are in gold spans"
        if spans.predicted
        else "the judge quoted nothing"
    )
    gold = (
        f"{spans.overlap} of {spans.gold} gold characters were quoted"
        if spans.gold
        else "gold has no spans"
    )
    return f"Span overlap: {judge}; {gold}."


def _spans(case: Graded, verdict: ParsedVerdict | None) -> SpanOverlap:
    """The judge's quoted characters against gold's; a judge failure quoted none."""
    quoted = verdict.unsupported_claims if verdict else []
    return quote_overlap(quoted, case.label.unsupported_claims, case.answer)


def _verdict_label(verdict: ParsedVerdict) -> str:
    if verdict.grounded:
        return "grounded"
    n = len(verdict.unsupported_claims)
    return f"ungrounded ({n} claim{'s' if n != 1 else ''})"


def _value(
    case: Graded,
    verdict: ParsedVerdict | None,
    cmp: ClaimComparison | None,
    spans: SpanOverlap,
    graded: GradedScore,
) -> dict[str, float]:
    """What the metrics aggregate; no verdict (a judge failure) agrees with nothing."""
    gold = case.label
    counts = Counts(
        agree=int(verdict is not None and verdict.grounded == gold.grounded),
        judge_failure=int(verdict is None),
        gold_ungrounded=int(not gold.grounded),
        judge_ungrounded=math.nan if verdict is None else int(not verdict.grounded),
        claims_gold=len(gold.unsupported_claims),
        claims_judge=len(verdict.unsupported_claims) if verdict else 0,
        claims_matched=len(cmp.matched) if cmp else 0,
        claims_not_in_answer=len(cmp.not_in_answer) if cmp else 0,
        span_judge_chars=spans.predicted,
        span_gold_chars=spans.gold,
        span_overlap_chars=spans.overlap,
    )
    # A TypedDict is a dict of numbers here; Score.value takes it as a plain mapping. The graded
    # score is no count: the metrics leave it to the comparison, which averages it over epochs.
    return {
        **cast(dict[str, float], counts),
        "p_ungrounded": graded.p_ungrounded,
        "graded_source": cast(float, graded.source),
    }


# Inspect's kinds of stop detail that say the provider, or the model, declined to answer.
_REFUSAL_DETAILS = ("refusal", "content_filter")


def refusal(output: ModelOutput) -> str | None:
    """The judge's refusal in words, quoting what it said; None where it did not refuse.

    Inspect marks one three ways: the stop reason `content_filter` (a provider's filter, and
    Anthropic's `refusal` stop reason), the stop details' type `refusal` (OpenAI's `refusal`
    field, in Chat Completions and the Responses API, under the stop reason `stop`), and the
    text parts it made of a refusal (`ContentText.refusal`).
    """
    choice = output.choices[0]
    detail = choice.stop_details
    content = choice.message.content
    parts = [
        c.text
        for c in ([] if isinstance(content, str) else content)
        if isinstance(c, ContentText) and c.refusal
    ]
    marked = detail is not None and detail.type in _REFUSAL_DETAILS
    if output.stop_reason != "content_filter" and not marked and not parts:
        return None
    # The refusal's own text first; a filter's error; what came back of the reply, last.
    said = (detail.explanation if detail else None) or "\n".join(parts) or output.error
    said = " ".join((said or output.completion).split())
    kind = f"refusal ({detail.category})" if detail and detail.category else "refusal"
    return f'{kind}: "{said}"' if said else f"{kind}, with no text"


def output_failure(output: ModelOutput) -> str | None:
    """Why the judge's output is a failure before its text is read, if it is one."""
    if output.empty:
        # The sample ended (a limit, say) before the judge answered.
        return "no reply from the judge"
    # Whatever text came back of a refusal is not a verdict.
    refused = refusal(output)
    if refused is not None:
        return refused
    if output.error:
        return f"provider error: {output.error}"
    return None


def _readable(part: ContentReasoning) -> str:
    # A redacted part's `reasoning` is an opaque payload (Anthropic's signature, OpenAI's
    # encrypted content); what of it a person can read is its summary.
    if part.redacted:
        return part.summary or ""
    return part.reasoning or part.summary or ""


def reasoning_parts(message: ChatMessageAssistant) -> list[str]:
    """The text of each reasoning part a provider delivered apart from the reply's text.

    Inspect turns `reasoning_content` and `reasoning` fields, well-formed `<think>` blocks,
    Anthropic thinking blocks and OpenAI reasoning items into these; `ModelOutput.completion`
    leaves them out.
    """
    if isinstance(message.content, str):
        return []
    return [_readable(c) for c in message.content if isinstance(c, ContentReasoning)]


def score_output(
    case: Graded,
    output: ModelOutput,
    graded: GradedMode = "off",
    metadata: Mapping[str, Any] | None = None,
) -> Score:
    """The Score of the judge's whole output: provider faults first, then the reply text.

    `graded` is how the sample's graded score is got; `metadata` the sample's, which keeps what
    the logprobs said when the judge replied (`graded.sample_reading`).
    """
    failure = output_failure(output)
    if failure is not None:
        return _failure_score(case, JudgeFailure(failure))
    reading: Reading | None = None
    if graded == "logprobs":
        reading = sample_reading(output, metadata or {})
    return score_reply(
        case,
        output.completion,
        output.stop_reason,
        reasoning_parts(output.message),
        graded,
        reading,
    )


def _set_aside_paragraph(set_aside: str) -> str:
    return f"Not read as the verdict: {set_aside}." if set_aside else ""


def _failure_score(case: Graded, failure: JudgeFailure) -> Score:
    gold = case.label
    gold_says = _word(gold.grounded)
    graded = graded_score("off", None, None)
    paragraphs = [
        f"Judge failure: {failure.reason}. It counts as no agreement. Gold says {gold_says}"
        + (f": {_quote_list(gold.unsupported_claims)}." if not gold.grounded else "."),
        graded.line,
        _set_aside_paragraph(failure.set_aside),
    ]
    return Score(
        value=_value(case, None, None, _spans(case, None), graded),
        answer="judge failure",
        explanation="\n\n".join(p for p in paragraphs if p),
        reason="grader_failed",
        metadata={"verdict": None, "failure": failure.reason},
    )


def score_reply(
    case: Graded,
    reply: str,
    stop_reason: str = "stop",
    reasoning: Sequence[str] = (),
    graded: GradedMode = "off",
    reading: Reading | None = None,
) -> Score:
    """The Score of one judge reply against one case's gold verdict.

    `reasoning` is the text of the reply's separate reasoning parts, set aside unread;
    `graded` how the graded score is got, and `reading` what the logprobs said where it is
    got from them.
    """
    gold = case.label
    gold_says = _word(gold.grounded)
    parsed = parse_verdict(reply, stop_reason, reasoning)
    if isinstance(parsed, JudgeFailure):
        return _failure_score(case, parsed)

    cmp = compare_claims(parsed.unsupported_claims, gold.unsupported_claims, case.answer)
    spans = _spans(case, parsed)
    agree = parsed.grounded == gold.grounded
    if agree:
        headline = f"Agree: gold and judge both say {gold_says}."
    else:
        headline = f"Disagree: gold says {gold_says}, the judge says {_word(parsed.grounded)}."
    if parsed.grounded and parsed.unsupported_claims:
        headline += " The judge said grounded yet listed unsupported claims."
    # Paragraphs, so the viewer's markdown keeps the claim list apart from the prose.
    paragraphs = [
        headline,
        "\n".join(_claim_lines(cmp)),
        _span_line(spans) if spans.predicted or spans.gold else "",
        f"Why gold says so: {case.rationale}",
    ]
    if isinstance(case, Gold) and case.edit:
        paragraphs.insert(1, f"Derived from its gold case by the edit {case.edit}.")
    # Here, not only in the score's metadata: the viewer shows that as a collapsed object.
    if parsed.reasoning:
        paragraphs.append(f"Judge's reasoning: {parsed.reasoning}")
    # Only a grammar holds a judge to the bounds; any other judge's verdict is checked here.
    too_long = over_long(parsed.unsupported_claims, parsed.reasoning)
    paragraphs.append(over_long_note(too_long))
    graded_as = graded_score(graded, parsed.grounded, reading)
    paragraphs.append(graded_as.line)
    paragraphs.append(_set_aside_paragraph(parsed.set_aside))
    return Score(
        value=_value(case, parsed, cmp, spans, graded_as),
        answer=_verdict_label(parsed),
        explanation="\n\n".join(p for p in paragraphs if p),
        # The verdict as read, for judge-compare's panel. The claims missed, extra or not in the
        # answer, and the over-long strings, are in the explanation (the value counts the claims):
        # nothing read them here, and Inspect serializes every metadata key of every sample's
        # summary again at each write.
        metadata={
            "verdict": {
                "grounded": parsed.grounded,
                "unsupported_claims": parsed.unsupported_claims,
                "reasoning": parsed.reasoning,
            },
        },
    )


def sample_errored() -> bool:
    """Whether the sample being scored errored.

    A scorer is given no sample error. Inspect records one as an `ErrorEvent` in the sample's
    transcript, which `inspect score` seeds with the logged events; the run itself scores an
    errored sample only under `score_on_error`, just after logging that event.
    """
    return any(isinstance(e, ErrorEvent) for e in transcript().history.resident_events)


@scorer(
    metrics=[
        verdict_accuracy(),
        balanced_accuracy(),
        precision(),
        recall(),
        f1(),
        cohen_kappa(),
        judge_failure_rate(),
        claim_precision(),
        claim_recall(),
        span_precision(),
        span_recall(),
        span_f1(),
        grouped(verdict_accuracy(), "category", all=False, name_template="category:{group_name}"),
        # Every sample has a relation: "gold" for a case as written, else its derivation.
        grouped(verdict_accuracy(), "relation", all=False, name_template="relation:{group_name}"),
        consistency_failure_rate(),
    ]
)
def verdict_agreement(graded: str = "auto", threshold: float | None = None) -> Scorer:
    """Agreement of the judge's verdict with gold, case and claim level.

    Args:
        graded: The task's `-T graded=` option: how each sample's graded score is got (auto,
            the task's default: by the sample's model). Inspect records it with the scorer,
            so `inspect score` scores a log as its run did.
        threshold: The task's confidence threshold (`-T threshold=`, checked there): each
            sample is then marked decided alone or escalated (`scorers/escalation.py`); None
            marks nothing.
    """
    # The task's option arrives checked; `inspect score -S graded=...` reaches here unchecked,
    # and an unknown mode would otherwise read as logprobs and grade every sample "no logprobs".
    option = GradedOption.given(graded, "-S")

    async def score(state: TaskState, target: Target) -> Score | None:
        if sample_errored():
            # An errored sample is an outage, not the judge's behaviour: the run left it out
            # of every metric by not scoring it, and so does `inspect score` on its log.
            return None
        # Logs written before the mode moved to the scorer's option record it per sample.
        mode = state.metadata.get("graded_mode") or option.mode(str(state.model))
        gold = Gold.of_sample(state.input, target.text, state.metadata)
        scored = score_output(gold, state.output, mode, state.metadata)
        value = cast(dict[str, float], scored.value)
        columns = review_fields(value, scored.answer or "", state.metadata, gold.question)
        scored = scored.model_copy(update={"value": {**value, **columns}})
        return scored if threshold is None else held_score(scored, mode, threshold, SHOWN_DECIMALS)

    return score


# `inspect score LOG` finds the scorer by the name the log records.
register_logged_name(verdict_agreement, "verdict_agreement")
