import asyncio
import json
import math
from collections.abc import Callable
from typing import cast

import pytest
from inspect_ai.model import ContentReasoning, ContentText, ModelName, ModelOutput
from inspect_ai.scorer import Metric, SampleScore, Target, Value
from inspect_ai.solver import TaskState

from farejudge.core.escaping import escape
from farejudge.core.spans import SpanOverlap, quote_overlap
from farejudge.evals.dataset import case_to_sample, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.scorers.claims import compare_claims
from farejudge.scorers.confusion import Confusion
from farejudge.scorers.graded import NoGrade, reading_record
from farejudge.scorers.metrics import (
    claim_precision,
    claim_recall,
    cohen_kappa,
    confusion,
    judge_failure_rate,
    span_f1,
    span_precision,
    span_recall,
    verdict_accuracy,
)
from farejudge.scorers.verdict_scorer import score_reply, verdict_agreement
from farejudge.testing.scripted_judge import mock_output
from tests.support.graded_replies import LLAMA, LLAMA_TOKENS, output_of, share
from tests.support.paths import FIXTURES

CASES = {c.id: c for c in load_cases(FIXTURES / "cases.jsonl")}


def state_for(
    case_id: str,
    reply: str | ModelOutput,
    stop_reason: str = "stop",
    model: str = "mockllm/model",
) -> TaskState:
    """The state the scorer sees once the judge replied: its text, or its whole output."""
    sample = case_to_sample(CASES[case_id], load_prompt_version())
    return TaskState(
        model=ModelName(model),
        sample_id=case_id,
        epoch=1,
        input=sample.input,
        messages=[],
        target=Target(sample.target),
        output=reply if isinstance(reply, ModelOutput) else mock_output(reply, stop_reason),
        metadata=sample.metadata,
    )


def run_scorer(state: TaskState, graded: str = "off") -> SampleScore:
    score = asyncio.run(verdict_agreement(graded)(state, state.target))
    assert score is not None
    return SampleScore(score=score, sample_id=state.sample_id, sample_metadata=state.metadata)


def test_agreeing_ungrounded_verdict_with_longer_quoted_claim() -> None:
    reply = json.dumps(
        {
            "grounded": False,
            "unsupported_claims": ["A youth monthly pass costs $25 and covers riders"],
            "reasoning": "P1 says $30.",
        }
    )
    score = run_scorer(state_for("t-price", reply)).score
    assert isinstance(score.value, dict)
    # Scored with no graded score asked for.
    assert math.isnan(cast(float, score.value.pop("p_ungrounded")))
    assert math.isnan(cast(float, score.value.pop("p_shown")))
    assert score.value == {
        "graded_source": "none",
        "agree": 1,
        "judge_failure": 0,
        "gold_ungrounded": 1,
        "judge_ungrounded": 1,
        "claims_gold": 1,
        "claims_judge": 1,
        "claims_matched": 1,
        "claims_not_in_answer": 0,
        "span_judge_chars": 48,
        "span_gold_chars": 30,
        "span_overlap_chars": 30,
        # What the viewer's sample list shows (scorers/viewer_columns.py).
        "category": "price",
        "gold": "ungrounded",
        "verdict": "ungrounded (1 claim)",
        "outcome": "agree",
        "question": CASES["t-price"].question,
    }
    assert score.answer == "ungrounded (1 claim)"
    assert score.explanation is not None
    assert score.explanation.startswith("Agree: gold and judge both say ungrounded.")
    assert (
        '- Matched: judge "A youth monthly pass costs $25 and covers riders" = gold '
        '"A youth monthly pass costs $25"' in score.explanation
    )
    assert (
        "Span overlap: 30 of the judge's 48 quoted characters are in gold spans; "
        "30 of 30 gold characters were quoted." in score.explanation
    )
    assert score.metadata is not None and score.metadata["verdict"]["reasoning"] == "P1 says $30."


def test_a_claim_quoted_as_gold_words_it_is_said_once() -> None:
    reply = json.dumps(
        {
            "grounded": False,
            "unsupported_claims": ["A youth monthly pass costs $25"],
            "reasoning": "P1 says $30.",
        }
    )
    score = run_scorer(state_for("t-price", reply)).score
    assert score.explanation is not None
    paragraphs = score.explanation.split("\n\n")
    assert paragraphs[:3] == [
        "Agree: gold and judge both say ungrounded.",
        '- Matched: "A youth monthly pass costs $25"',
        "Span overlap: the judge quoted exactly gold's 30 characters.",
    ]
    assert "Judge's reasoning: P1 says $30." in paragraphs


def test_disagreement_lists_missed_extra_and_invented_claims() -> None:
    reply = json.dumps(
        {"grounded": False, "unsupported_claims": ["Renewal is in person", "costs $5 online"]}
    )
    score = run_scorer(state_for("t-silence", reply)).score
    assert isinstance(score.value, dict)
    assert score.value["agree"] == 0
    assert score.value["claims_not_in_answer"] == 1
    assert score.explanation is not None
    assert "Disagree: gold says grounded, the judge says ungrounded." in score.explanation
    assert (
        'Extra (flagged by the judge, not in gold): "Renewal is in person"; "costs $5 online"'
        in (score.explanation)
    )
    assert 'Not a quotation of the answer: "costs $5 online"' in score.explanation


def test_missed_claim_when_judge_says_grounded() -> None:
    score = run_scorer(state_for("t-price", '{"grounded": true, "unsupported_claims": []}')).score
    assert isinstance(score.value, dict)
    assert (score.value["agree"], score.value["claims_matched"], score.value["claims_gold"]) == (
        0,
        0,
        1,
    )
    assert score.explanation is not None
    assert 'Missed (in gold, not flagged by the judge): "A youth monthly pass costs $25"' in (
        score.explanation
    )


@pytest.mark.parametrize("reply", ["", '{"grounded": "true"}', '{"grounded": false, "unsupp'])
def test_unparseable_reply_is_a_judge_failure_not_agreement(reply: str) -> None:
    score = run_scorer(state_for("t-conv", reply)).score
    assert isinstance(score.value, dict)
    assert score.value["agree"] == 0
    assert score.value["judge_failure"] == 1
    assert math.isnan(float(score.value["judge_ungrounded"] or 0))
    assert score.answer == "judge failure"
    assert score.reason == "grader_failed"
    # Nothing quoted, nothing to miss: t-conv is grounded in gold.
    spans = ("span_judge_chars", "span_gold_chars", "span_overlap_chars")
    assert [score.value[k] for k in spans] == [0, 0, 0]
    assert score.metadata == {"verdict": None, "failure": score.metadata["failure"]}  # type: ignore[index]


def test_a_judge_failure_misses_every_gold_character() -> None:
    score = score_reply(CASES["t-price"], "I cannot decide.")
    assert isinstance(score.value, dict)
    assert (
        score.value["span_judge_chars"],
        score.value["span_gold_chars"],
        score.value["span_overlap_chars"],
    ) == (0, len("A youth monthly pass costs $25"), 0)
    assert score.explanation is not None and "Span overlap" not in score.explanation


def test_a_grounded_verdict_on_a_grounded_answer_has_no_span_line() -> None:
    score = score_reply(CASES["t-conv"], '{"grounded": true, "unsupported_claims": []}')
    assert score.explanation is not None and "Span overlap" not in score.explanation


def _quoting(claims: list[str]) -> str:
    return json.dumps({"grounded": False, "unsupported_claims": claims})


def test_quoting_the_whole_answer_keeps_claim_precision_but_not_span_precision() -> None:
    answer = CASES["t-price"].answer
    scores = [run_scorer(state_for("t-price", _quoting([answer])))]
    assert apply(claim_precision(), scores) == 1.0
    assert apply(claim_recall(), scores) == 1.0
    assert apply(span_recall(), scores) == 1.0
    gold = len("A youth monthly pass costs $25")
    assert figure(span_precision(), scores) == pytest.approx(gold / len(answer))
    assert figure(span_precision(), scores) < 0.5
    assert apply(span_f1(), scores) == pytest.approx(2 * gold / (gold + len(answer)))
    assert scores[0].score.explanation is not None
    assert (
        f"Span overlap: {gold} of the judge's {len(answer)} quoted characters are in gold spans"
        in scores[0].score.explanation
    )


def test_quoting_exactly_the_gold_spans_scores_full_span_precision_and_recall() -> None:
    scores = [
        run_scorer(state_for("t-price", _quoting(["a youth monthly pass  costs $25."]))),
        run_scorer(state_for("t-silence", '{"grounded": true, "unsupported_claims": []}')),
    ]
    assert apply(span_precision(), scores) == 1.0
    assert apply(span_recall(), scores) == 1.0
    assert apply(span_f1(), scores) == 1.0


def test_span_figures_are_micro_averaged_and_count_invented_quotes() -> None:
    scores = [
        # 30 gold characters quoted in a 48-character quote.
        run_scorer(
            state_for("t-price", _quoting(["A youth monthly pass costs $25 and covers riders"]))
        ),
        # 15 characters the answer does not hold; gold has none.
        run_scorer(state_for("t-silence", _quoting(["costs $5 online"]))),
    ]
    assert apply(span_precision(), scores) == pytest.approx(30 / (48 + 15))
    assert apply(span_recall(), scores) == 1.0
    assert apply(span_f1(), scores) == pytest.approx(2 * 30 / (48 + 15 + 30))


def test_span_figures_are_undefined_without_characters() -> None:
    scores = [run_scorer(state_for("t-conv", '{"grounded": true, "unsupported_claims": []}'))]
    assert all(math.isnan(figure(m, scores)) for m in (span_precision(), span_recall(), span_f1()))


def test_cut_off_reply_says_so() -> None:
    score = score_reply(CASES["t-conv"], '{"grounded": true, "reasoning": "The fare', "max_tokens")
    assert score.explanation is not None and "cut off at the token limit" in score.explanation


UNGROUNDED_PRICE = '{"grounded": false, "unsupported_claims": ["costs $25"]}'
DRAFT = '{"grounded": true, "unsupported_claims": []}'


def test_reasoning_is_set_aside_and_the_explanation_says_so() -> None:
    thought = f"Draft: {DRAFT}. No: P1 says $30."
    output = ModelOutput.from_content(
        "vllm/Qwen/QwQ-32B",
        [ContentReasoning(reasoning=thought), ContentText(text=UNGROUNDED_PRICE)],
    )
    score = run_scorer(state_for("t-price", output)).score
    assert score.answer == "ungrounded (1 claim)"
    assert score.explanation is not None
    assert score.explanation.startswith("Agree: gold and judge both say ungrounded.")
    assert score.explanation.endswith(
        f"Not read as the verdict: reasoning ({len(thought)} chars, in a separate part) set aside."
    )


def test_a_draft_before_a_lone_closing_tag_is_not_the_verdict() -> None:
    thought = f"Draft: {DRAFT} …"
    score = run_scorer(state_for("t-price", f"{thought} </think>\n\nI cannot decide")).score
    assert score.answer == "judge failure" and score.metadata is not None
    assert score.metadata["failure"].startswith("no complete JSON object")
    assert score.explanation is not None
    assert score.explanation.endswith(
        f"Not read as the verdict: reasoning ({len(thought)} chars, before a lone </think>: "
        "the chat template opened the block) set aside."
    )


@pytest.mark.parametrize("stop_reason", ["max_tokens", "model_length"])
def test_a_cut_off_reply_is_a_judge_failure_even_where_a_verdict_parses(
    stop_reason: str,
) -> None:
    score = run_scorer(state_for("t-price", UNGROUNDED_PRICE + "\n\nWait,", stop_reason)).score
    assert isinstance(score.value, dict) and score.value["judge_failure"] == 1
    assert score.answer == "judge failure"
    assert score.explanation is not None
    assert score.explanation.startswith(
        "Judge failure: cut off at the token limit after a verdict it might have gone on to revise."
    )


def test_an_over_long_reasoning_is_flagged_and_still_scored_as_written() -> None:
    reasoning = "x" * 450
    reply = json.dumps({"grounded": True, "unsupported_claims": [], "reasoning": reasoning})
    score = score_reply(CASES["t-conv"], reply)
    assert score.answer != "judge failure"
    assert score.metadata == {
        "verdict": {"grounded": True, "unsupported_claims": [], "reasoning": reasoning}
    }
    assert "reasoning has 450 characters (bound 400)" in str(score.explanation)


def test_a_verdict_within_its_bounds_is_not_flagged() -> None:
    score = score_reply(CASES["t-conv"], '{"grounded": true, "unsupported_claims": []}')
    assert "length bounds" not in str(score.explanation)


def test_claim_matching_is_one_to_one() -> None:
    answer = "It costs $25. It covers ages 6 to 18."
    cmp = compare_claims(["It costs $25", "costs $25."], ["costs $25"], answer)
    assert len(cmp.matched) == 1 and len(cmp.extra) == 1 and cmp.missed == []
    assert cmp.not_in_answer == []


def test_a_quote_of_an_answer_that_says_an_entity_is_matched_through_the_escaping() -> None:
    # Issue 26, finding 10: the answer literally says "&lt;FREE&gt;"; the judge read it escaped
    # and quoted exactly what it read.
    answer = "Children ride &lt;FREE&gt; & seniors pay $1 < $2."
    gold = ["ride &lt;FREE&gt;", "pay $1 < $2"]
    judge = [escape("Children ride &lt;FREE&gt;"), escape("seniors pay $1 < $2")]
    cmp = compare_claims(judge, gold, answer)
    assert cmp.not_in_answer == [] and cmp.missed == [] and cmp.extra == []
    assert quote_overlap(judge, gold, answer) == SpanOverlap(
        predicted=len("Children ride &lt;FREE&gt;") + len("seniors pay $1 < $2"),
        gold=len("ride &lt;FREE&gt;") + len("pay $1 < $2"),
        overlap=len("ride &lt;FREE&gt;") + len("pay $1 < $2"),
    )


def test_confusion_and_kappa_by_hand() -> None:
    # 20 cases: tp=6, fn=4, fp=2, tn=8. po=0.7; pe=0.5*0.4+0.5*0.6=0.5; kappa=0.4
    table = Confusion(tp=6, fn=4, fp=2, tn=8)
    assert table.accuracy == pytest.approx(0.7)
    assert table.precision == pytest.approx(0.75)
    assert table.recall == pytest.approx(0.6)
    assert table.balanced_accuracy == pytest.approx((0.6 + 0.8) / 2)
    assert table.f1 == pytest.approx(2 * 6 / (12 + 2 + 4))
    assert table.kappa == pytest.approx(0.4)
    assert math.isnan(Confusion(tn=5).kappa)
    assert math.isnan(Confusion(tn=5).precision)


def test_metrics_count_failures_against_accuracy_only_visibly() -> None:
    scores = [
        run_scorer(
            state_for("t-price", '{"grounded": false, "unsupported_claims": ["costs $25"]}')
        ),
        run_scorer(state_for("t-silence", '{"grounded": true, "unsupported_claims": []}')),
        run_scorer(state_for("t-conv", "I cannot decide.")),
    ]
    assert apply(verdict_accuracy(), scores) == pytest.approx(2 / 3)
    assert confusion(scores) == Confusion(tp=1, tn=1)
    assert apply(cohen_kappa(), scores) == 1.0
    assert apply(claim_precision(), scores) == 1.0
    assert apply(claim_recall(), scores) == 1.0
    # "costs $25" matches its gold claim, but is 9 of its 30 characters; t-conv failed on a
    # grounded case, so it misses none.
    assert apply(span_precision(), scores) == 1.0
    assert apply(span_recall(), scores) == pytest.approx(9 / 30)


def test_metrics_follow_a_list_that_grew_or_changed_since_the_last_metric() -> None:
    # The metrics share one extraction of a list's columns: a list grown in place, or another
    # list of the same length, must be read afresh.
    right = run_scorer(state_for("t-silence", '{"grounded": true, "unsupported_claims": []}'))
    wrong = run_scorer(state_for("t-conv", "I cannot decide."))
    scores = [right]
    assert apply(verdict_accuracy(), scores) == 1.0
    assert apply(judge_failure_rate(), scores) == 0.0
    scores.append(wrong)
    assert apply(verdict_accuracy(), scores) == 0.5
    assert apply(judge_failure_rate(), scores) == 0.5
    scores_again = [wrong, wrong]
    assert apply(verdict_accuracy(), scores_again) == 0.0
    assert apply(verdict_accuracy(), scores) == 0.5


def apply(m: Metric, scores: list[SampleScore]) -> Value:
    # Inspect's `Metric` also admits the pre-0.3.64 signature over bare scores; these take
    # sample scores.
    return cast(Callable[[list[SampleScore]], Value], m)(scores)


def figure(m: Metric, scores: list[SampleScore]) -> float:
    """A metric that gives one number, as that number."""
    value = apply(m, scores)
    assert isinstance(value, int | float)
    return float(value)


def graded_of(state: TaskState, graded: str = "logprobs") -> tuple[float, object, str]:
    score = run_scorer(state, graded).score
    assert isinstance(score.value, dict) and score.explanation is not None
    return cast(float, score.value["p_ungrounded"]), score.value["graded_source"], score.explanation


GROUNDED_CASE = next(c.id for c in CASES.values() if c.label.grounded)


def test_the_reading_recorded_at_the_reply_is_the_graded_score() -> None:
    # The solver read the logprobs and dropped them: the record is all the scorer has.
    state = state_for(GROUNDED_CASE, LLAMA)
    state.metadata["graded_reading"] = reading_record(0.25)
    assert graded_of(state)[:2] == (0.25, "logprobs")
    # A record says why there is none even where the output still has logprobs.
    state = state_for(GROUNDED_CASE, output_of(LLAMA, LLAMA_TOKENS))
    refused = NoGrade("the provider refused logprobs (HTTP 400: no)")
    state.metadata["graded_reading"] = reading_record(refused)
    p, source, explanation = graded_of(state)
    assert math.isnan(p) and source == "none"
    assert "No graded score: the provider refused logprobs (HTTP 400: no)." in explanation


def test_without_a_record_the_logprobs_are_read_from_the_output() -> None:
    # A log written before readings were recorded keeps its logprobs in the output.
    state = state_for(GROUNDED_CASE, output_of(LLAMA, LLAMA_TOKENS))
    p, source, _ = graded_of(state)
    assert source == "logprobs"
    assert p == pytest.approx(share([-1.946, -4.651], [-0.309, -2.369]))


@pytest.mark.parametrize(
    ("model", "source"), [("gguf/smollm2-135m", "logprobs"), ("openai/gpt-4o-mini", "epochs")]
)
def test_auto_grades_by_the_sample_model(model: str, source: str) -> None:
    state = state_for(GROUNDED_CASE, output_of(LLAMA, LLAMA_TOKENS), model=model)
    assert graded_of(state, "auto")[1] == source
    # The grounded verdict, as the epochs mode reads it: P(ungrounded) 0.
    assert graded_of(state, "epochs")[:2] == (0.0, "epochs")
    assert math.isnan(graded_of(state, "off")[0])


def test_a_mode_recorded_per_sample_wins_over_the_option() -> None:
    # Logs written before the mode became the scorer's option record it in each sample;
    # `inspect score` on one builds the scorer without the option, as auto.
    state = state_for(GROUNDED_CASE, output_of(LLAMA, LLAMA_TOKENS))
    state.metadata["graded_mode"] = "off"
    assert graded_of(state, "auto")[1] == "none"
    state.metadata["graded_mode"] = "logprobs"
    assert graded_of(state, "auto")[1] == "logprobs"


def test_a_sample_laid_out_as_an_older_log_scores_as_a_new_one() -> None:
    # `inspect score` re-scores logs whose target was gold's label alone and whose metadata kept
    # the case's texts: under `case`, and before that at the top level.
    case = CASES["t-price"]
    new = run_scorer(state_for("t-price", UNGROUNDED_PRICE)).score
    texts = {"question": case.question, "answer": case.answer, "rationale": case.rationale}
    for metadata in (
        {"category": case.category, "case": texts},
        {"category": case.category, **texts},
    ):
        old = state_for("t-price", UNGROUNDED_PRICE)
        old.metadata = metadata
        scored = asyncio.run(verdict_agreement("off")(old, Target(case.label.model_dump_json())))
        assert scored is not None
        # As JSON, where a NaN (no graded score under "off") equals itself.
        assert (json.dumps(scored.value), scored.answer, scored.explanation) == (
            json.dumps(new.value),
            new.answer,
            new.explanation,
        )
    assert isinstance(new.value, dict) and new.value["question"] == case.question
    assert new.explanation is not None and f"Why gold says so: {case.rationale}" in new.explanation
