import pytest
from hypothesis import given
from hypothesis import strategies as st

from farejudge.core.sample_case import (
    ANNOTATIONS_KEY,
    ANSWER_TAG,
    GoldTarget,
    LoggedAnnotation,
    case_texts,
    gold_target,
    prompt_text,
    sample_metadata,
)
from farejudge.evals.dataset import CONTESTED, case_to_sample, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from tests.support.paths import FIXTURES

CASE = load_cases(FIXTURES / "cases.jsonl")[0]
V3 = load_prompt_version("v3")


def test_the_metadata_holds_what_a_run_groups_by_and_gold_is_the_target() -> None:
    assert sample_metadata(CASE) == {"category": CASE.category}
    gold = GoldTarget.model_validate_json(gold_target(CASE))
    assert gold.label == CASE.label
    assert (gold.rationale, gold.rules) == (CASE.rationale, CASE.rules)


def test_a_contested_case_carries_each_annotators_verdict_and_response_set() -> None:
    case = next(c for c in load_cases(CONTESTED / "cases") if len(c.annotations) == 4)
    metadata = case_to_sample(case, V3).metadata or {}
    logged = [LoggedAnnotation.model_validate(each) for each in metadata[ANNOTATIONS_KEY]]
    assert [(a.annotator, a.kind, a.role, a.grounded, a.response_set) for a in logged] == [
        (a.annotator, a.kind, a.role, a.grounded, a.response_set) for a in case.annotations
    ]
    assert [a.role for a in logged].count("adjudicator") == 1


def test_the_question_and_answer_read_back_from_the_rendered_prompt() -> None:
    sample = case_to_sample(CASE, V3)
    assert not isinstance(sample.input, str)
    gold = GoldTarget.model_validate_json(str(sample.target))
    texts = case_texts(sample.input, gold, sample.metadata or {})
    assert (texts.question, texts.answer, texts.rationale) == (
        CASE.question,
        CASE.answer,
        CASE.rationale,
    )


# Any text a case may hold, the frame's own characters and tags among them.
_TEXT = (
    st.lists(st.sampled_from([*"ab &;<>/\n\t", "&lt;", "&amp;", "</assistant_answer>"]), min_size=1)
    .map("".join)
    .filter(str.strip)
)


@given(question=_TEXT, answer=_TEXT)
def test_any_question_and_answer_read_back_exactly(question: str, answer: str) -> None:
    case = CASE.model_copy(update={"question": question, "answer": answer})
    for version in ("v1", "v2", "v3"):
        sample = case_to_sample(case, load_prompt_version(version))
        assert not isinstance(sample.input, str)
        texts = case_texts(sample.input, GoldTarget.model_validate_json(str(sample.target)), {})
        assert (texts.question, texts.answer) == (question, answer)


def test_a_prompt_without_the_tag_has_no_text_there() -> None:
    assert prompt_text("no frame here", ANSWER_TAG) is None
    with pytest.raises(ValueError, match="assistant_answer"):
        case_texts("<rider_question>\nq\n</rider_question>", GoldTarget.model_validate_json(
            gold_target(CASE)), {})  # fmt: skip


def test_a_log_from_before_the_move_reads_its_texts_from_its_metadata() -> None:
    # `inspect score` re-scores logs whose target was the label alone and whose texts were
    # metadata: under `case`, and before that at the top level.
    label_only = GoldTarget.model_validate_json(CASE.label.model_dump_json())
    assert label_only.rationale is None
    flat = {"category": "price", "question": "How much?", "answer": "$2.", "rationale": "P1."}
    for metadata in (flat, {"category": "price", "case": flat}, {**flat, "case": "not a map"}):
        texts = case_texts("unused", label_only, metadata)
        assert (texts.question, texts.answer, texts.rationale) == ("How much?", "$2.", "P1.")
