import datetime
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, BaseModel, StrictBool, TypeAdapter, ValidationError

from farejudge.core.errors import InputError
from farejudge.evals.dataset import DEFAULT_CASES, case_to_sample, load_cases
from farejudge.evals.prompt_versions import load_prompt_version
from farejudge.evals.render import judge_messages
from tests.support.paths import FIXTURES

CASES_FILE = FIXTURES / "cases.jsonl"


def good_record() -> dict[str, Any]:
    record: dict[str, Any] = json.loads(CASES_FILE.read_text(encoding="utf-8").splitlines()[1])
    return record


def test_shipped_cases_load_and_become_samples() -> None:
    cases = {c.id: c for c in load_cases(DEFAULT_CASES)}
    assert {"conv-004", "fresh-001"} <= set(cases)
    conv = cases["conv-004"]
    assert conv.prior_turns, "conv-004 is the multi-turn case that motivated v2"
    v3 = load_prompt_version("v3")
    sample = case_to_sample(conv, v3)
    assert sample.id == "conv-004"
    assert not isinstance(sample.input, str)
    assert [(m.role, m.text) for m in sample.input] == [
        (m.role, m.text) for m in judge_messages(conv, v3)
    ]
    assert json.loads(str(sample.target)) == {
        **conv.label.model_dump(),
        "rationale": conv.rationale,
        "rules": conv.rules,
    }
    # The question and answer are in the prompt, gold in the target: the metadata holds only
    # what a run groups by.
    assert sample.metadata == {"category": conv.category}
    fresh = cases["fresh-001"]
    assert fresh.category == "provenance"
    assert any(p.fetched in fresh.answer for p in fresh.passages), (
        "fresh-001 discloses a fetch date"
    )


def test_dates_read_back_as_written() -> None:
    raw = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines()]
    loaded = load_cases(CASES_FILE)
    assert [c.passages[0].fetched for c in loaded] == [r["passages"][0]["fetched"] for r in raw]


def test_dataset_option_accepts_a_file_or_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(CASES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    assert [c.id for c in load_cases(tmp_path)] == [
        "t-conv",
        "t-price",
        "t-silence",
    ]
    assert len(load_cases(CASES_FILE)) == 3


def mutate(change: str) -> str:
    """One good record, changed as named, as a JSON Lines line."""
    record = good_record()
    record["id"] = "t-new"
    if change == "missing field":
        del record["rationale"]
    elif change == "mistyped field":
        record["label"]["grounded"] = "false"
    elif change == "claim not in answer":
        record["label"]["unsupported_claims"] = ["costs $99"]
    elif change == "grounded with claims":
        record["label"]["grounded"] = True
    elif change == "ungrounded without claims":
        record["label"]["unsupported_claims"] = []
    elif change == "bad role":
        record["prior_turns"] = [{"role": "system", "content": "hi"}]
    elif change == "bad date":
        record["passages"][0]["fetched"] = "2026-13-01"
    elif change == "extra field":
        record["score"] = 1
    return json.dumps(record)


class OneField(BaseModel, extra="forbid"):
    field: str


def pydantic_reason(annotation: Any, value: Any) -> str:
    """pydantic's message for `value` not validating as `annotation`.

    Its wording changes between releases: the loader must pass it on whole, whatever it is.
    """
    try:
        TypeAdapter(annotation).validate_python(value)
    except ValidationError as err:
        return err.errors()[0]["msg"]
    raise AssertionError(f"{value!r} is a valid {annotation}")


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ("missing field", "rationale", pydantic_reason(OneField, {})),
        ("mistyped field", "label.grounded", pydantic_reason(StrictBool, "false")),
        (
            "claim not in answer",
            "label.unsupported_claims.0",
            "'costs $99' is not a verbatim part of the answer",
        ),
        ("grounded with claims", "label", "grounded is true but unsupported_claims is not empty"),
        ("ungrounded without claims", "label", "grounded is false but unsupported_claims is empty"),
        (
            "bad role",
            "prior_turns.0.role",
            pydantic_reason(Literal["user", "assistant"], "system"),
        ),
        (
            "bad date",
            "passages.0.fetched",
            # The calendar check, not the YYYY-MM-DD pattern, refuses month 13.
            pydantic_reason(
                Annotated[str, AfterValidator(datetime.date.fromisoformat)], "2026-13-01"
            ),
        ),
        ("extra field", "score", pydantic_reason(OneField, {"field": "f", "score": 1})),
    ],
)
def test_bad_record_is_named_by_file_line_case_and_field(
    tmp_path: Path, change: str, field: str, message: str
) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        CASES_FILE.read_text(encoding="utf-8") + mutate(change) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as err:
        load_cases(path)
    (line,) = err.value.problems
    assert line == f"{path}:4: case 't-new': field '{field}': {message}"


def test_every_problem_is_reported_at_once(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    lines = CASES_FILE.read_text(encoding="utf-8").splitlines()
    path.write_text(
        "\n".join([lines[0], lines[0], "{not json", lines[1][:50]]) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError) as err:
        load_cases(path)
    problems = err.value.problems
    assert len(problems) == 3
    assert problems[0] == f"{path}:2: case 't-conv': field 'id': duplicate of {path}:1"
    assert problems[1].startswith(f"{path}:3: case ?: not valid JSON")
    assert problems[2].startswith(f"{path}:4: case ?: not valid JSON")


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    for name in ("a.jsonl", "b.jsonl"):
        (tmp_path / name).write_text(CASES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_cases(tmp_path)
    assert len(err.value.problems) == 3
    assert all("duplicate of" in p and "a.jsonl" in p for p in err.value.problems)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(InputError, match="no cases in this file"):
        load_cases(empty)
    with pytest.raises(InputError, match="no such case file or folder"):
        load_cases(tmp_path / "nope.jsonl")
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(InputError, match=r"no \*\.jsonl case files"):
        load_cases(folder)


def test_datasets_folder_is_not_a_python_package() -> None:
    assert not (DEFAULT_CASES.parent / "__init__.py").exists()


def test_line_numbers_count_blank_lines_and_every_line_ending(tmp_path: Path) -> None:
    conv, price, silence = CASES_FILE.read_text(encoding="utf-8").splitlines()
    # Line 1 blank (CRLF), 2 CRLF, 3 only spaces, 4 ends in a lone CR, 5 LF, 6 has no newline.
    text = f"\r\n{conv}\r\n  \n{price}\r{silence}\n"
    path = tmp_path / "cases.jsonl"
    path.write_bytes(text.encode("utf-8"))
    assert [c.id for c in load_cases(path)] == ["t-conv", "t-price", "t-silence"]
    path.write_bytes(f"{text}{mutate('claim not in answer')}".encode())
    with pytest.raises(InputError) as err:
        load_cases(path)
    (line,) = err.value.problems
    assert line == (
        f"{path}:6: case 't-new': field 'label.unsupported_claims.0': "
        "'costs $99' is not a verbatim part of the answer"
    )


def test_a_line_ends_only_at_a_line_break(tmp_path: Path) -> None:
    # JSON allows U+2028 and U+0085 raw inside a string; neither ends the record's line.
    record = good_record()
    record["rationale"] += " \u2028 \x85"
    path = tmp_path / "cases.jsonl"
    path.write_text(
        json.dumps(record, ensure_ascii=False) + "\n" + mutate("extra field") + "\n",
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        load_cases(path)
    (line,) = err.value.problems
    assert line.startswith(f"{path}:2: case 't-new': field 'score': ")
    path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    (case,) = load_cases(path)
    assert case.rationale == record["rationale"]


def test_a_folder_name_is_not_a_pattern(tmp_path: Path) -> None:
    folder = tmp_path / "[draft]"
    folder.mkdir()
    (folder / "a.jsonl").write_text(CASES_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    assert [c.id for c in load_cases(folder)] == ["t-conv", "t-price", "t-silence"]
