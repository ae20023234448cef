from pathlib import Path

from farejudge.core.sample_metadata import CASE_TEXTS, case_texts, sample_metadata
from farejudge.evals.dataset import load_cases

CASES_FILE = Path(__file__).parents[1] / "fixtures" / "cases.jsonl"


def test_the_case_texts_sit_under_case_and_read_back() -> None:
    case = load_cases(CASES_FILE)[0]
    metadata = sample_metadata(case)
    assert set(metadata) == {"category", "case"}
    assert metadata["category"] == case.category
    texts = case_texts(metadata)
    assert set(texts) == set(CASE_TEXTS)
    assert (texts["question"], texts["answer"], texts["rationale"], texts["rules"]) == (
        case.question,
        case.answer,
        case.rationale,
        case.rules,
    )


def test_a_log_from_before_the_move_reads_its_texts_at_the_top_level() -> None:
    # `inspect score` re-scores logs written when the texts were top-level metadata.
    flat = {"category": "price", "question": "How much?", "answer": "$2.", "rationale": "P1."}
    assert case_texts(flat)["answer"] == "$2."
    assert case_texts({**flat, "case": "not a mapping"})["question"] == "How much?"
