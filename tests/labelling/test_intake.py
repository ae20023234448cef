"""Intake: the assistant's log records → draft cases, on the shipped sample log and bad records."""

import json
from pathlib import Path
from typing import Any

import pytest

from farejudge.core.errors import InputError
from farejudge.evals.dataset import load_cases
from farejudge.labelling.draft_file import read_drafts
from farejudge.labelling.intake import intake, main
from farejudge.labelling.intake_mapping import IntakeMapping, load_mapping
from farejudge.labelling.records import content_hash
from tests.support.paths import FIXTURES

LOG = FIXTURES / "assistant_log.jsonl"
MAPPING = FIXTURES / "assistant_log_mapping.toml"


def log_records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]


def test_sample_log_becomes_ten_drafts() -> None:
    result = intake([LOG], load_mapping(MAPPING), load_cases(), existing=[])
    # Line 4 is gold case price-003 word for word; line 11 re-sends line 3.
    assert result.records == 12
    assert len(result.drafts) == 10
    assert [d.split(" → ")[1] for d in result.gold_duplicates] == ["price-003"]
    assert [d.rsplit(":", 1)[1] for d in result.already_drafted] == [f"11 → {result.drafts[2].id}"]
    records = [r for i, r in enumerate(log_records(), start=1) if i not in (4, 11)]
    for draft, record in zip(result.drafts, records, strict=True):
        assert draft.question == record["conversation"]["query"]
        assert draft.answer == record["response"]["text"]
        assert [p.text for p in draft.passages] == [
            c["chunk_text"] for c in record["retrieval"]["chunks"]
        ]
        assert [p.tag for p in draft.passages] == [
            f"P{i}" for i in range(1, len(draft.passages) + 1)
        ]
        assert draft.content_sha256 == content_hash(draft)
        assert draft.id == f"prod-{draft.content_sha256[:10]}"
        assert record["request_id"] in draft.source
        assert draft.category == "production"
    with_turns = [d for d in result.drafts if d.prior_turns]
    assert with_turns, "the sample log has multi-turn records"
    # The log's speaker "rider" is the case's "user".
    assert {t.role for d in with_turns for t in d.prior_turns} == {"user", "assistant"}


def test_intake_again_adds_nothing_and_keeps_ids(tmp_path: Path) -> None:
    out = tmp_path / "drafts.jsonl"
    args = [str(LOG), "--mapping", str(MAPPING), "--out", str(out)]
    assert main(args) == 0
    first = out.read_text(encoding="utf-8")
    assert main(args) == 0
    assert out.read_text(encoding="utf-8") == first
    assert len(read_drafts(out)) == 10


def test_default_mapping_reads_case_field_names(tmp_path: Path) -> None:
    case = load_cases()[0]
    record = case.model_dump(mode="json", exclude={"label", "rationale", "rules", "category"})
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = intake([log], IntakeMapping(), gold=[], existing=[])
    (draft,) = result.drafts
    assert draft.content_sha256 == content_hash(case)
    # Against the gold set it is the gold case itself.
    assert len(intake([log], IntakeMapping(), gold=[case], existing=[]).gold_duplicates) == 1


def _broken(edit: Any) -> str:
    record = log_records()[0]
    edit(record)
    return json.dumps(record)


BAD_RECORDS: list[tuple[str, str, str]] = [
    ("not json", "{oops", "record ?: not valid JSON"),
    ("not an object", "[1, 2]", "record ?: a JSON list, not an object"),
    (
        "lost field",
        _broken(lambda r: r["retrieval"]["chunks"][0].pop("crawled_on")),
        "record 'req-20261102-0001': no field 'retrieval.chunks.0.crawled_on'",
    ),
    (
        "bad date",
        _broken(lambda r: r["retrieval"]["chunks"][0].update(crawled_on="August 1")),
        "record 'req-20261102-0001': field 'passages.0.fetched'",
    ),
    (
        "empty answer",
        _broken(lambda r: r["response"].update(text="")),
        "record 'req-20261102-0001': field 'answer'",
    ),
    (
        "unknown role",
        _broken(lambda r: r["conversation"].update(history=[{"speaker": "bot", "text": "hi"}])),
        "record 'req-20261102-0001': field 'prior_turns.0.role'",
    ),
]


@pytest.mark.parametrize(
    ("line", "expected"), [(b[1], b[2]) for b in BAD_RECORDS], ids=[b[0] for b in BAD_RECORDS]
)
def test_bad_record_is_one_line_and_nothing_is_written(
    tmp_path: Path, line: str, expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "log.jsonl"
    good = LOG.read_text(encoding="utf-8").splitlines()[0]
    log.write_text(good + "\n" + line + "\n", encoding="utf-8")
    out = tmp_path / "drafts.jsonl"
    with pytest.raises(InputError) as err:
        intake([log], load_mapping(MAPPING), gold=[], existing=[])
    assert all(p.startswith(f"{log}:2: ") for p in err.value.problems), err.value.problems
    assert expected in err.value.problems[0]
    assert (
        main(
            [
                str(log),
                "--mapping",
                str(MAPPING),
                "--out",
                str(out),
                "--gold",
                str(FIXTURES / "cases.jsonl"),
            ]
        )
        == 2
    )
    assert not out.exists(), "a failed intake writes nothing"
    assert expected in capsys.readouterr().err


def test_bad_mapping_names_the_key(tmp_path: Path) -> None:
    mapping = tmp_path / "m.toml"
    mapping.write_text('question = "q"\n[passage]\nbody = "text"\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"m.toml: passage.body: Extra inputs"):
        load_mapping(mapping)
